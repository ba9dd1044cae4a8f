import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message } from '@svc/engine';
import { RecordingLogger, processor, run, testContext } from '../mapping/test-context.js';
import './log.js';

async function logged(conf: Record<string, unknown>, batch: Message[]) {
  const ctx = testContext('root.pipeline.processors.0');
  const p = await processor({ log: conf }, ctx);
  const out = await run(p, batch);
  assert.deepEqual(out, [batch], 'the batch passes on unchanged');
  return ctx.logger.lines;
}

describe('log processor', () => {
  it('interpolates the message per message', async () => {
    const lines = await logged({ message: 'order ${! this.id } from ${! meta("customer") } (${! batch_index() })' }, [
      new Message('{"id":7}', { customer: 'ada' }),
      new Message('{"id":8}', { customer: 'bob' }),
    ]);
    assert.deepEqual(lines, [
      { level: 'INFO', msg: 'order 7 from ada (0)' },
      { level: 'INFO', msg: 'order 8 from bob (1)' },
    ]);
  });

  it('logs at the configured level, with static and interpolated fields', async () => {
    const lines = await logged({ level: 'WARN', message: 'hi', fields: { team: 'core', id: '${! this.id }' } }, [new Message('{"id":1}')]);
    assert.deepEqual(lines, [{ level: 'WARN', msg: 'hi', fields: { team: 'core', id: '1' } }]);
  });

  it('adds the root object of fields_mapping as fields', async () => {
    const lines = await logged({ message: 'got one', fields_mapping: 'root.id = this.id\nroot.size = this.items.length()' }, [
      new Message('{"id":"a","items":[1,2]}'),
    ]);
    assert.deepEqual(lines, [{ level: 'INFO', msg: 'got one', fields: { id: 'a', size: 2 } }]);
  });

  it('logs the error text when the message cannot be interpolated, instead of failing', async () => {
    const batch = [new Message('not json')];
    const lines = await logged({ message: 'id ${! this.id }' }, batch);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!.msg, /^failed to interpolate message: unable to reference message as structured \(with 'this\.id'\)/);
    assert.equal(batch[0]!.error, undefined, 'logging never flags the message');
  });

  it('reports a failing or non-object fields_mapping in a field and still logs the line', async () => {
    const lines = await logged({ message: 'x', fields_mapping: 'root = this.id' }, [new Message('{"id":1}'), new Message('{}')]);
    assert.deepEqual(lines[0], { level: 'INFO', msg: 'x', fields: { fields_mapping_error: 'the result must be an object, got number' } });
    assert.deepEqual(lines[1], { level: 'INFO', msg: 'x' }, 'a mapping that gives nothing adds nothing');
    const thrown = await logged({ message: 'y', fields_mapping: 'root.a = throw("no")' }, [new Message('{}')]);
    assert.deepEqual(thrown, [{ level: 'INFO', msg: 'y', fields: { fields_mapping_error: 'failed assignment (line 1): no' } }]);
  });

  it('adds the error of a flagged message, and keeps a static message as it is (escapes resolved)', async () => {
    const m = new Message('{}');
    m.setError('boom');
    const lines = await logged({ message: 'literal ${{! this.id }}' }, [m]);
    assert.deepEqual(lines, [{ level: 'INFO', msg: 'literal ${! this.id }', fields: { error: 'boom' } }]);
  });

  it('evaluates nothing when its level is disabled', async () => {
    const ctx = testContext('root.pipeline.processors.0', new RecordingLogger([], {}, 'INFO'));
    const p = await processor({ log: { message: '${! throw("never evaluated") }', level: 'DEBUG', fields_mapping: 'root = throw("no")' } }, ctx);
    const batch = [new Message('{}')];
    assert.deepEqual(await run(p, batch), [batch]);
    assert.deepEqual(ctx.logger.lines, []);
    const info = await processor({ log: { message: 'shown' } }, ctx);
    await run(info, batch);
    assert.deepEqual(ctx.logger.lines, [{ level: 'INFO', msg: 'shown' }]);
  });
});
