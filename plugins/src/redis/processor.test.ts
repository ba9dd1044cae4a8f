/**
 * The `redis` processor against the real Redis: `command` + `args_mapping` replace each message
 * with the reply as JSON (strings, 64-bit integers, maps, arrays, nil), the deprecated operators
 * keep Benthos' outputs, a failing command flags its message after the retries.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message } from '@svc/engine';
import { buildProcessor, redis, tempKey } from './test-support.js';

async function run(config: Record<string, unknown>, messages: Message[]): Promise<Message[]> {
  const p = await buildProcessor(config);
  try {
    const out = await p.process(messages);
    return out.flat();
  } finally {
    await p.close?.();
  }
}

describe('redis processor (real Redis)', () => {
  it('incrby per message in batch order (the running total example)', async () => {
    const ash = tempKey('proc-ash');
    const bob = tempKey('proc-bob');
    const rows = [
      { name: ash, friends_visited: 10 },
      { name: ash, friends_visited: -2 },
      { name: bob, friends_visited: 3 },
      { name: bob, friends_visited: 1 },
    ];
    const out = await run(
      { command: 'incrby', args_mapping: 'root = [ this.name, this.friends_visited ]' },
      rows.map((r) => new Message(JSON.stringify(r))),
    );
    assert.deepEqual(
      out.map((m) => m.content.toString()),
      ['10', '8', '3', '4'],
    );
  });

  it('replies as JSON: a string, a 64-bit integer, a map, an array, nil; the command interpolated', async () => {
    const s = tempKey('proc-s');
    const h = tempKey('proc-h');
    const r = await redis();
    await r.send(['SET', s, 'text']);
    await r.send(['HSET', h, 'f1', 'v1', 'f2', 'v2']);
    await r.send(['SET', `${s}:n`, '9007199254740993']);
    const out = await run({ command: '${! meta("cmd") }', args_mapping: 'root = this.args' }, [
      new Message(JSON.stringify({ args: [s] }), { cmd: 'get' }),
      new Message(JSON.stringify({ args: [`${s}:n`, 1] }), { cmd: 'incrby' }),
      new Message(JSON.stringify({ args: [h] }), { cmd: 'hgetall' }),
      new Message(JSON.stringify({ args: [h, 'f1', 'nope'] }), { cmd: 'hmget' }),
      new Message(JSON.stringify({ args: [`${s}:missing`] }), { cmd: 'get' }),
    ]);
    assert.deepEqual(
      out.map((m) => m.content.toString()),
      ['"text"', '9007199254740994', '{"f1":"v1","f2":"v2"}', '["v1",null]', 'null'],
    );
  });

  it('the deprecated operators: scard, sadd, incrby and keys', async () => {
    const set = tempKey('proc-set');
    const n = tempKey('proc-n');
    const sadd = await run({ operator: 'sadd', key: set }, [new Message('a'), new Message('b'), new Message('a')]);
    assert.deepEqual(
      sadd.map((m) => m.content.toString()),
      ['1', '1', '0'],
    );
    const scard = await run({ operator: 'scard', key: set }, [new Message('')]);
    assert.equal(scard[0]!.content.toString(), '2');
    const incr = await run({ operator: 'incrby', key: n }, [new Message('5'), new Message('x')]);
    assert.equal(incr[0]!.content.toString(), '5');
    assert.match(incr[1]!.error ?? '', /redis operator failed: strconv.Atoi/);
    const keys = await run({ operator: 'keys', key: n }, [new Message('')]);
    assert.deepEqual(keys[0]!.json(), [n]);
  });

  it('a failing command flags its message after the retries; the others pass', async () => {
    const s = tempKey('proc-wrongtype');
    await (await redis()).send(['SET', s, 'x']);
    const out = await run({ command: 'incr', args_mapping: 'root = [ this.k ]', retries: 1, retry_period: '10ms' }, [
      new Message(JSON.stringify({ k: s })),
      new Message(JSON.stringify({ k: tempKey('proc-ok') })),
      new Message('{"k":'),
    ]);
    assert.match(out[0]!.error ?? '', /not an integer/);
    assert.equal(out[1]!.error, undefined);
    assert.equal(out[1]!.content.toString(), '1');
    assert.match(out[2]!.error ?? '', /args mapping failed/);
  });

  it('command and operator together, or neither, are refused at start', async () => {
    await assert.rejects(buildProcessor({ command: 'get', operator: 'keys', args_mapping: 'root = []' }), /one of 'operator'/);
    await assert.rejects(buildProcessor({}), /one of 'operator'/);
  });
});
