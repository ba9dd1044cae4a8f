import { test } from 'node:test';
import assert from 'node:assert/strict';
import { END_OF_INPUT, registry, type EndOfInput, type Input, type Transaction } from '@svc/engine';
import { GenerateInput, generateSpec, literalMapping, type GenerateConfig } from './generate.js';
import './index.js';
import { buildInput, lint, withDefaults } from './test-context.js';

const conf = (c: Partial<GenerateConfig>): GenerateConfig => withDefaults(generateSpec, c);

/** Lets resolved timers' promises settle (setImmediate is not mocked). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

function tx(r: Transaction | EndOfInput): Transaction {
  assert.notEqual(r, END_OF_INPUT);
  return r as Transaction;
}

test('literal mappings: JSON strings give raw text, other values compact JSON', () => {
  const cases: Array<[string, string]> = [
    ['root = "hello"', 'hello'],
    ['root="hello world"', 'hello world'],
    ['root = "a\\nb \\u00e9"', 'a\nb é'],
    ['root = {"a":1}', '{"a":1}'],
    ['root = { "a": 1, "b": [true, null] }', '{"a":1,"b":[true,null]}'],
    ['root = 42', '42'],
    ['root = null', 'null'],
    ['root = [1, "x"]', '[1,"x"]'],
    ['\n  root = {\n    "id": "x",\n    "n": 2\n  }\n', '{"id":"x","n":2}'],
  ];
  for (const [mapping, want] of cases) {
    const r = literalMapping(mapping);
    assert.ok(Buffer.isBuffer(r), `${mapping}: ${String(r)}`);
    assert.equal(r.toString(), want);
  }
});

test('other mappings run per message: content, metadata, batch_index, deleted roots', async () => {
  for (const m of ['root = this.foo', 'root.a = 1', 'root = uuid_v4()', 'root = {"a":1} # comment']) assert.equal(literalMapping(m), undefined, m);
  const input = await buildInput('generate', {
    mapping: 'root.i = batch_index()\nmeta kind = "gen"\nroot = if batch_index() == 1 { deleted() }',
    interval: '',
    count: 3,
    batch_size: 3,
  });
  const t = tx(await input.read());
  assert.deepEqual(
    t.batch.map((m) => m.text()),
    ['{"i":0}', '{"i":2}'],
  );
  assert.deepEqual(
    t.batch.map((m) => m.getMeta('kind')),
    ['gen', 'gen'],
  );
  const ids = new Set<string>();
  const uuids = await buildInput('generate', { mapping: 'root = uuid_v4()', interval: '', count: 50, batch_size: 50 });
  for (const m of tx(await uuids.read()).batch) ids.add(m.text());
  assert.equal(ids.size, 50, 'evaluated per message, not once');
  assert.throws(() => new GenerateInput(conf({ mapping: 'root = this.' })), /line 1/);
  assert.match(lint(generateSpec, { ...conf({ mapping: 'root = 1' }), batch_size: 0 }).join(), /batch_size must be at least 1/);
  assert.match(lint(generateSpec, { ...conf({ mapping: 'root = 1' }), interval: '5 seconds' }).join(), /invalid duration/);
  assert.match(lint(generateSpec, {}).join(), /config\.mapping: required/);
});

test('defaults follow Benthos: interval 1s, count 0, batch_size 1, auto_replay_nacks true', () => {
  const c = conf({ mapping: 'root = 1' });
  assert.deepEqual(c, { mapping: 'root = 1', interval: '1s', count: 0, batch_size: 1, auto_replay_nacks: true });
  assert.ok(registry().get('input', 'generate'));
});

test('count and batch_size: full batches, a smaller last one, then END_OF_INPUT; synchronous; shared content', async () => {
  const input = await buildInput('generate', { mapping: 'root = {"a":1}', interval: '', count: 10, batch_size: 3 });
  const sizes: number[] = [];
  let content: Buffer | undefined;
  for (;;) {
    const r = input.read();
    assert.ok(!(r instanceof Promise), 'no waiting without an interval');
    if (r === END_OF_INPUT) break;
    const t = tx(r);
    sizes.push(t.batch.length);
    for (const m of t.batch) {
      assert.equal(m.text(), '{"a":1}');
      content ??= m.content;
      assert.equal(m.content, content, 'one shared buffer');
    }
    t.ack();
  }
  assert.deepEqual(sizes, [3, 3, 3, 1]);
  assert.equal(input.read(), END_OF_INPUT, 'stays ended');
});

test('count 0 is unlimited', () => {
  const input = new GenerateInput(conf({ mapping: 'root = "x"', interval: '0s', batch_size: 100 }));
  let n = 0;
  for (let i = 0; i < 1000; i++) n += tx(input.read() as Transaction).batch.length;
  assert.equal(n, 100_000);
});

test('interval: the first batch at once, then one per interval', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  const input = new GenerateInput(conf({ mapping: 'root = "tick"', interval: '40ms', count: 3 }));
  const first = input.read();
  assert.ok(!(first instanceof Promise), 'the first batch comes at once');
  assert.equal(tx(first).batch[0]!.text(), 'tick');
  for (const n of [2, 3]) {
    const got: string[] = [];
    const next = input.read();
    assert.ok(next instanceof Promise);
    void next.then((r) => got.push(tx(r).batch[0]!.text()));
    t.mock.timers.tick(39);
    await settle();
    assert.deepEqual(got, [], `batch ${n} not before the interval`);
    t.mock.timers.tick(1);
    await settle();
    assert.deepEqual(got, ['tick'], `batch ${n} at the interval`);
  }
  assert.equal(await input.read(), END_OF_INPUT);
});

test('close ends a pending read at once, and later reads', async (t) => {
  // The clock is mocked and never moves: only close can end the read.
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const input: Input = new GenerateInput(conf({ mapping: 'root = "x"', interval: '1h' }));
  tx(await input.read());
  const pending = input.read();
  await input.close!();
  assert.equal(await pending, END_OF_INPUT);
  assert.equal(await input.read(), END_OF_INPUT);
});

test('without an interval every read returns its batch synchronously (no promise, no timer per batch)', () => {
  const input = new GenerateInput(conf({ mapping: 'root = "x"', interval: '', batch_size: 100 }));
  const n = 200_000;
  let got = 0;
  while (got < n) {
    const r = input.read();
    assert.ok(!(r instanceof Promise), `read ${got / 100} returned a promise`);
    const t = tx(r);
    got += t.batch.length;
    t.ack();
  }
  assert.equal(got, n);
});
