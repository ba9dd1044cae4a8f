import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchError, Message, f, registerOutput, type Output } from '@svc/engine';
import '../io/drop.js';
import '../io/reject.js';
import './index.js';
import { NO_CASE_MATCHED } from './switch-output.js';
import { build, captured, closed, failWrites, messages, processor, run, testContext } from './test-context.js';

const capture = (name: string, extra: Record<string, unknown> = {}) => ({ mapping_test_capture: { name, ...extra } });
const docs = (...ns: unknown[]) => ns.map((n) => new Message(JSON.stringify({ n })));
const switchOutput = (conf: Record<string, unknown>, ctx = testContext()) => build<Output>('output', { switch: conf }, ctx);

// An output whose writes wait until the test opens the gate: shows that parts are written in parallel.
const gate = { started: 0, open: () => {}, received: [] as Message[][] };
let opened = new Promise<void>((r) => (gate.open = r));
registerOutput('mapping_test_gate', {
  summary: 'Test output: writes wait for the test.',
  config: f.object({}),
  factory: () => ({
    async write(batch) {
      gate.started++;
      gate.received.push(batch);
      await opened;
    },
  }),
});

describe('switch output', () => {
  it('sends each message to the first case it matches, in batch order; drops what matches nothing', async () => {
    const out = await switchOutput({
      cases: [
        { check: 'this.n < 10', output: capture('small') },
        { check: 'this.n < 100', output: capture('medium') },
      ],
    });
    await out.write(docs(1, 50, 2, 500, 60));
    assert.deepEqual(captured.get('small'), [['{"n":1}', '{"n":2}']]);
    assert.deepEqual(captured.get('medium'), [['{"n":50}', '{"n":60}']]);
  });

  it('with continue, also sends a message to the later cases it matches', async () => {
    const out = await switchOutput({
      cases: [{ check: 'this.n > 0', output: capture('audit'), continue: true }, { check: 'this.n > 5', output: capture('big') }, { output: capture('rest') }],
    });
    await out.write(docs(1, 7, -1));
    assert.deepEqual(captured.get('audit'), [['{"n":1}', '{"n":7}']]);
    assert.deepEqual(captured.get('big'), [['{"n":7}']]);
    assert.deepEqual(captured.get('rest'), [['{"n":1}', '{"n":-1}']]);
  });

  it('in strict_mode, fails the write when a message matches no case, and writes nothing', async () => {
    const out = await switchOutput({ strict_mode: true, cases: [{ check: 'this.n == 1', output: capture('strict') }] });
    await assert.rejects(out.write(docs(1, 2)), new RegExp(NO_CASE_MATCHED));
    assert.deepEqual(captured.get('strict'), []);
    await out.write(docs(1));
    assert.deepEqual(captured.get('strict'), [['{"n":1}']]);
  });

  it('resolves without writing when nothing matches outside strict_mode (the batch is acked)', async () => {
    const out = await switchOutput({
      cases: [
        { check: 'false', output: capture('never') },
        { check: 'this.n == 9', output: { drop: {} } },
      ],
    });
    await out.write(docs(1, 2));
    await out.write(docs(9));
    assert.deepEqual(captured.get('never'), []);
  });

  it('routes failed messages to a dead letter output with errored()', async () => {
    const out = await switchOutput({
      cases: [{ check: 'errored()', output: capture('dead_letter') }, { output: capture('main') }],
    });
    const mapping = await processor({ mapping: 'root.n = this.n.number()' });
    const [batch] = await run(mapping, messages('{"n":"1"}', '{"n":"one"}', '{"n":"3"}'));
    await out.write(batch!);
    assert.deepEqual(captured.get('main'), [['{"n":1}', '{"n":3}']]);
    assert.equal(captured.get('dead_letter')!.length, 1);
    assert.match(captured.get('dead_letter')![0]![0]!, /^\{"n":"one"\}!failed assignment \(line 1\): .*/);
  });

  it('fails the write when a part fails, after the other parts were delivered: a BatchError names only the failed part', async () => {
    const out = await switchOutput({
      cases: [{ check: 'this.n == 1 || this.n == 3', output: { reject: 'downstream is full' } }, { output: capture('other_ok', { delay_ms: 20 }) }],
    });
    await assert.rejects(
      out.write(docs(1, 2, 3, 4)),
      (err: unknown) => err instanceof BatchError && /downstream is full/.test(err.message) && err.indexes().join() === '0,2',
    );
    assert.deepEqual(captured.get('other_ok'), [['{"n":2}', '{"n":4}']], 'the write settles only after every part did');
    // Every part failed: nothing was delivered, an ordinary failure (the batch is nacked).
    await assert.rejects(out.write(docs(1, 3)), (err: unknown) => !(err instanceof BatchError) && /downstream is full/.test(String(err)));
  });

  it('with retry_until_success, retries only the failed part until it is delivered', async () => {
    const ctx = testContext();
    const out = await switchOutput(
      {
        retry_until_success: true,
        cases: [{ check: 'this.n == 1', output: capture('flaky') }, { output: capture('steady') }],
      },
      ctx,
    );
    failWrites.set('flaky', 2);
    await out.write(docs(1, 2));
    assert.deepEqual(captured.get('flaky'), [['{"n":1}']]);
    assert.deepEqual(captured.get('steady'), [['{"n":2}']], 'the part that succeeded is not written again');
    const warnings = ctx.logger.lines.filter((l) => l.level === 'WARN');
    assert.equal(warnings.length, 2);
    assert.match(warnings[0]!.msg, /^Failed to write to root\.output\.switch\.cases\.0\.output, retrying in \d+ms: flaky refused the write \(test\)$/);
  });

  it('stops retrying when closed, failing the write, and closes its outputs', async () => {
    const out = await switchOutput({ retry_until_success: true, cases: [{ output: capture('closing') }] });
    failWrites.set('closing', 1_000_000);
    const pending = out.write(docs(1));
    await new Promise((r) => setTimeout(r, 20));
    await out.close!();
    await assert.rejects(pending, /closing refused the write/);
    assert.ok(closed.has('closing'));
    failWrites.delete('closing');
  });

  it('treats a check that fails as not matching, and logs it', async () => {
    const ctx = testContext();
    const out = await switchOutput({ cases: [{ check: 'this.n > 1', output: capture('checked') }, { output: capture('fallback') }] }, ctx);
    await out.write([new Message('{"n":"x"}'), new Message('{"n":2}')]);
    assert.deepEqual(captured.get('checked'), [['{"n":2}']]);
    assert.deepEqual(captured.get('fallback'), [['{"n":"x"}']]);
    assert.match(ctx.logger.lines.find((l) => l.level === 'ERROR')!.msg, /^Failed to test case 0: cannot compare types string/);
  });

  it('writes the parts of a batch in parallel, and gives outputs copies of the messages', async () => {
    const out = await switchOutput({ cases: [{ check: 'this.n == 1', output: { mapping_test_gate: {} } }, { output: { mapping_test_gate: {} } }] });
    gate.started = 0;
    gate.received = [];
    const batch = docs(1, 2);
    const done = out.write(batch);
    await new Promise((r) => setImmediate(r));
    assert.equal(gate.started, 2, 'both parts were started before either finished');
    gate.open();
    await done;
    opened = new Promise<void>((r) => (gate.open = r));
    const [first, second] = gate.received;
    assert.deepEqual([first!.map((m) => m.text()), second!.map((m) => m.text())], [['{"n":1}'], ['{"n":2}']]);
    assert.notEqual(first![0], batch[0], 'an output may edit what it is given without touching the batch');
  });

  it('refuses a check that does not compile', async () => {
    await assert.rejects(switchOutput({ cases: [{ check: 'this.n ==', output: { drop: {} } }] }), /line 1 char/);
  });
});
