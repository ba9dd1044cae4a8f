import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputFailedError } from '../errors.js';
import { seen } from '../testing/test-plugin.js';
import { streamOf } from '../testing/run-config.js';
import { waitFor } from '../testing/services.js';

const all = (name: string) => seen.delivered.get(name)!.flat();
const range = (n: number) => Array.from({ length: n }, (_, i) => String(i));

/**
 * Waits until a `test_source` named `name` (batches of `batchSize`) has given `count` messages:
 * each is either still owed or was acked (a replayed nack never reaches the input). Waiting for
 * `undelivered` alone never ends when a batch is delivered before the last one is read.
 */
async function untilRead(s: { undelivered: number }, name: string, count: number, batchSize: number): Promise<void> {
  for (let i = 0; s.undelivered + batchSize * (seen.acks.get(name)?.ok ?? 0) < count; i++) {
    if (i > 2000) throw new Error(`${name}: the input gave fewer than ${count} messages in 10 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('stream: at-least-once delivery', () => {
  it('delivers every message of a finite input, acks each transaction, and ends', async () => {
    const s = streamOf(`
input: { test_source: { name: a1, count: 250, batch_size: 7 } }
pipeline: { threads: 1 }
output: { test_sink: { name: a1 } }
`);
    await s.run();
    assert.deepEqual(all('a1'), range(250));
    assert.deepEqual(seen.acks.get('a1'), { ok: 36, nack: 0 });
    assert.equal(s.inFlight, 0);
  });

  it('processes up to an input’s `concurrency` of its transactions at once, delivering all', async () => {
    // threads: 2 runs a chain this cheap inline (it waits on I/O, not the CPU): still 8 at once.
    for (const [name, concurrency, expected, threads] of [
      ['lanes1', 1, 1, 1],
      ['lanes8', 8, 8, 1],
      ['lanes8t2', 8, 8, 2],
    ] as const) {
      const s = streamOf(`
input: { test_source: { name: ${name}, count: 40, concurrency: ${concurrency} } }
pipeline: { threads: ${threads}, processors: [ { test_wait: { name: ${name}, ms: 20 } } ] }
output: { test_sink: { name: ${name} } }
`);
      await s.run();
      assert.equal(seen.peakWaiting.get(name), expected, `${name}: batches in the processor at once`);
      assert.deepEqual(
        [...all(name)].sort((a, b) => +a - +b),
        range(40),
      );
      assert.equal(s.inFlight, 0);
    }
  });

  it('acks a transaction whose requesters all left and frees its slot, without waiting on its processors', async () => {
    // 12 transactions, 4 slots, a stage that never finishes: each slot frees when its requester leaves.
    const s = streamOf(`
input: { test_leaving_source: { name: gone1, count: 12, concurrency: 4, leaves_ms: 20 } }
pipeline: { threads: 1, processors: [ { test_stall: {} } ] }
output: { test_sink: { name: gone1 } }
`);
    await s.run();
    assert.deepEqual(seen.acks.get('gone1'), { ok: 12, nack: 0 });
    assert.equal(seen.delivered.get('gone1')?.length ?? 0, 0, 'nothing delivered: nobody waits for it');
    assert.equal(s.inFlight, 0);
  });

  it('replays nacked transactions until delivered (auto_replay_nacks), losing nothing', async () => {
    const s = streamOf(`
input: { test_source: { name: r1, count: 20, batch_size: 2 } }
pipeline: { threads: 1 }
output: { test_sink: { name: r1, fail_writes: 5 } }
`);
    await s.run();
    assert.deepEqual(
      [...all('r1')].sort((a, b) => +a - +b),
      range(20),
    );
    assert.equal(seen.acks.get('r1')!.ok, 10, 'the input sees one successful ack per transaction');
    assert.equal(seen.acks.get('r1')!.nack, 0, 'replayed nacks never reach the input');
  });

  it('a replay sends what the input read, not what processors made of it (they run again on a copy)', async () => {
    const s = streamOf(`
input: { test_source: { name: r2, count: 20, batch_size: 2 } }
pipeline: { threads: 1, processors: [ { test_upper: {} } ] }
output: { test_sink: { name: r2, fail_writes: 5 } }
`);
    await s.run();
    const out = all('r2');
    assert.equal(out.length, 20);
    assert.ok(
      out.every((x) => x.split('@').length === 2),
      `processed once each: ${out.filter((x) => x.split('@').length !== 2).join(', ')}`,
    );
  });

  it('an input that fails (InputFailedError) ends run() with it, once everything read before, replays included, is delivered', async () => {
    const source = (name: string) => `test_source: { name: ${name}, count: 10, batch_size: 3, fail_at_end: "cannot go on (test)" }`;
    const inputs = [
      ['f1', `{ ${source('f1')} }`],
      ['f2', `{ broker: { inputs: [ { ${source('f2')} } ], batching: { count: 4 } } }`],
    ] as const;
    for (const [name, input] of inputs) {
      const s = streamOf(`
input: ${input}
pipeline: { threads: 1 }
output: { test_sink: { name: ${name}, fail_writes: 2, max_in_flight: 4, delay_ms: 5 } }
`);
      await assert.rejects(s.run(), (err: Error) => err instanceof InputFailedError && err.message === 'cannot go on (test)');
      assert.deepEqual(
        [...all(name)].sort((a, b) => +a - +b),
        range(10),
        name,
      );
      assert.equal(seen.acks.get(name)!.nack, 0);
      assert.equal(s.inFlight, 0);
    }
  });

  it('hands nacks back to the input when auto_replay_nacks is false', async () => {
    const s = streamOf(`
input: { test_source: { name: n1, count: 4, auto_replay_nacks: false } }
pipeline: { threads: 1 }
output: { test_sink: { name: n1, fail_writes: 2 } }
`);
    await s.run();
    assert.deepEqual(seen.acks.get('n1'), { ok: 2, nack: 2 });
    assert.deepEqual(all('n1'), ['2', '3']);
  });

  it('reconnects an output that lost its connection and retries the same batch', async () => {
    const s = streamOf(`
input: { test_source: { name: d1, count: 5 } }
pipeline: { threads: 1 }
output: { test_sink: { name: d1, disconnect_writes: 2 } }
`);
    await s.run();
    assert.deepEqual(all('d1'), range(5));
    assert.equal(seen.acks.get('d1')!.nack, 0);
  });

  it('reconnects an input whose connect fails, with back-off', async () => {
    const s = streamOf(`
input: { test_source: { name: c1, count: 3, fail_connects: 2 } }
pipeline: { threads: 1 }
output: { test_sink: { name: c1 } }
`);
    await s.run();
    assert.deepEqual(all('c1'), range(3));
    assert.equal(seen.connects.get('c1'), 3);
  });

  it('flags messages a processor throws on, and keeps going', async () => {
    const s = streamOf(`
input: { test_source: { name: e1, count: 3 } }
pipeline:
  threads: 1
  processors: [ { test_throw: { on: ["1"] } } ]
output: { test_sink: { name: e1 } }
`);
    await s.run();
    assert.deepEqual(all('e1'), ['0', '1!boom (test)', '2']);
  });

  it('acks filtered messages and splits acks across split batches', async () => {
    const s = streamOf(`
input: { test_source: { name: s1, count: 6, batch_size: 3 } }
pipeline:
  threads: 1
  processors: [ { test_split: {} } ]
output: { test_sink: { name: s1 } }
`);
    await s.run();
    assert.deepEqual(
      seen.delivered.get('s1'),
      range(6).map((x) => [x]),
    );
    assert.deepEqual(seen.acks.get('s1'), { ok: 2, nack: 0 });
  });
});

describe('stream: batching', () => {
  it('output batching by count groups transactions and acks each one', async () => {
    const s = streamOf(`
input: { test_source: { name: b1, count: 10 } }
pipeline: { threads: 1 }
output:
  test_sink: { name: b1, batching: { count: 4, period: 50ms } }
`);
    await s.run();
    assert.deepEqual(
      seen.delivered.get('b1')!.map((b) => b.length),
      [4, 4, 2],
    );
    assert.deepEqual(seen.acks.get('b1'), { ok: 10, nack: 0 });
  });

  it('input batching by count and period (broker batching)', async () => {
    const s = streamOf(`
input:
  broker:
    inputs: [ { test_source: { name: b2, count: 10 } } ]
    batching: { count: 4, period: 50ms }
pipeline: { threads: 1 }
output: { test_sink: { name: b2 } }
`);
    await s.run();
    assert.deepEqual(
      seen.delivered.get('b2')!.map((b) => b.length),
      [4, 4, 2],
    );
    assert.deepEqual(seen.acks.get('b2'), { ok: 10, nack: 0 });
  });
});

describe('stream: batching check', () => {
  it('flushes when the check is true for a message', async () => {
    const s = streamOf(`
input:
  broker:
    inputs: [ { test_source: { name: bc, count: 10 } } ]
    batching: { check: 'content() == "3" || content() == "6"' }
pipeline: { threads: 1 }
output: { test_sink: { name: bc } }
`);
    await s.run();
    assert.deepEqual(
      seen.delivered.get('bc')!.map((b) => b.length),
      [4, 3, 3],
    );
  });
});

describe('stream: threads', () => {
  it('runs processors on worker threads and delivers every message', async () => {
    const s = streamOf(`
input: { test_source: { name: t1, count: 400, batch_size: 50 } }
pipeline:
  threads: 2
  dispatch: pool
  processors: [ { test_upper: {} } ]
output: { test_sink: { name: t1 } }
`);
    await s.run();
    const out = all('t1');
    assert.equal(out.length, 400);
    assert.deepEqual(
      out.map((x) => x.split('@')[0]!).sort((a, b) => +a - +b),
      range(400),
    );
    assert.ok(
      out.every((x) => x.split('@')[1] !== '0'),
      'processed off the main thread',
    );
  });
});

describe('stream: worker threads', () => {
  it('dispatch auto: a cheap chain runs inline (no hop), a CPU-heavy one is shared by the worker and this thread', async () => {
    const cheap = streamOf(`
input: { test_source: { name: da1, count: 2000, batch_size: 10 } }
pipeline: { threads: 2, processors: [ { test_upper: {} } ] }
output: { test_sink: { name: da1 } }
`);
    await cheap.run();
    const cheapOut = all('da1');
    assert.equal(cheapOut.length, 2000);
    const offMain = cheapOut.filter((x) => x.split('@')[1] !== '0').length;
    // Timing decides (a loaded machine moves the costs), so the bounds are wide: a pool-only
    // dispatcher would send all of them, an inline-only one none of the heavy ones.
    assert.ok(offMain <= 2000 * 0.25, `a cheap chain stays on the main thread but for samples: ${offMain} of 2000 went to workers`);

    const heavy = streamOf(`
input: { test_source: { name: da2, count: 1200, batch_size: 20 } }
pipeline: { threads: 2, processors: [ { test_busy: { micros: 1000 } }, { test_upper: {} } ] }
output: { test_sink: { name: da2 } }
`);
    // The worker starts once a batch proves dear (batches run here meanwhile): this measures the split once it is up.
    await heavy.startWorkers();
    await heavy.run();
    const heavyOut = all('da2');
    assert.equal(heavyOut.length, 1200);
    const onWorkers = heavyOut.filter((x) => x.split('@')[1] !== '0').length;
    // threads 2 is one worker and this thread: the worker holds two batches, this thread runs the
    // third when it comes (both share the work, neither takes all of it).
    assert.ok(onWorkers >= 1200 * 0.25, `a heavy chain goes to the workers: ${onWorkers} of 1200`);
    assert.ok(onWorkers <= 1200 * 0.9, `this thread processes a heavy chain too while the worker is busy: ${1200 - onWorkers} of 1200`);
  });

  const namesTheProcessor = (err: Error) => {
    assert.match(err.message, /pipeline worker thread cannot build its processors/);
    assert.match(err.message, /root\.pipeline\.processors\.\d: cannot create processor test_worker_refuses/);
    assert.match(err.message, /cannot open the model file/);
    return true;
  };

  it('dispatch pool: a processor that cannot be built on a worker thread is a start-up error naming it', async () => {
    const s = streamOf(`
input: { test_source: { name: wr1, count: 5 } }
pipeline:
  threads: 2
  dispatch: pool
  processors: [ { test_worker_refuses: {} } ]
output: { test_sink: { name: wr1 } }
`);
    await assert.rejects(s.build(), namesTheProcessor);
  });

  it('dispatch auto: a light chain starts no worker; a dear one starts them, and one that cannot build its chain ends the stream with that error, nothing lost', async () => {
    const light = streamOf(`
input: { test_source: { name: wr2, count: 500, batch_size: 10, hold: true } }
pipeline:
  threads: 2
  processors: [ { test_worker_refuses: {} } ]
output: { test_sink: { name: wr2 } }
`);
    const running = light.run();
    // Long enough for a worker to start and fail, had one been started (one starts in ~0.2 s).
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await light.stop(5000), true);
    await running;
    assert.deepEqual(all('wr2'), range(500));

    const dear = streamOf(`
input: { test_source: { name: wr3, count: 50, batch_size: 5, hold: true } }
pipeline:
  threads: 2
  processors: [ { test_busy: { micros: 2000 } }, { test_worker_refuses: {} } ]
output: { test_sink: { name: wr3 } }
`);
    await dear.build();
    await assert.rejects(dear.run(), namesTheProcessor);
    // Everything read before the failure was processed on this thread and delivered, then acked.
    assert.deepEqual(all('wr3'), range(50));
    assert.deepEqual(seen.acks.get('wr3'), { ok: 10, nack: 0 });
  });
});

describe('stream: shutdown', () => {
  it('stop() stops reading and drains in-flight messages', async () => {
    const s = streamOf(`
input: { test_source: { name: st1, count: 1000000 } }
pipeline: { threads: 1 }
output: { test_sink: { name: st1, delay_ms: 1 } }
`);
    const running = s.run();
    // Stop mid-stream: once the first messages are delivered.
    await waitFor('the first deliveries', async () => (all('st1').length > 0 ? true : undefined), 30_000, 5);
    assert.equal(await s.stop(5000), true);
    await running;
    const acks = seen.acks.get('st1')!;
    assert.equal(acks.ok, all('st1').length, 'every delivered message was acked');
    assert.ok(acks.ok < 1000000);
  });

  // A message waiting for a replay (its write failed) is in flight: a drain must not report
  // success before it is delivered, and must say how many were not when it runs out of time.
  for (const threads of [1, 2]) {
    it(`stop() waits for messages waiting to be replayed and delivers them (threads ${threads})`, async () => {
      const name = `sr${threads}`;
      const s = streamOf(`
input: { test_source: { name: ${name}, count: 10, batch_size: 2, hold: true } }
pipeline: { threads: ${threads}, processors: [ { test_upper: {} } ] }
output: { test_sink: { name: ${name}, fail_writes: 8 } }
`);
      const running = s.run();
      // Stop once all ten were read (the workers start first at threads 2).
      await untilRead(s, name, 10, 2);
      assert.equal(await s.stop(10_000), true);
      await running;
      const texts = all(name).map((x) => x.split('@')[0]!);
      assert.deepEqual(
        texts.sort((a, b) => +a - +b),
        range(10),
      );
      assert.deepEqual(seen.acks.get(name), { ok: 5, nack: 0 });
      assert.equal(s.undelivered, 0);
    });

    it(`stop() reports what it could not deliver in time instead of success (threads ${threads})`, async () => {
      const name = `sf${threads}`;
      const s = streamOf(`
input: { test_source: { name: ${name}, count: 10, batch_size: 2, hold: true } }
pipeline: { threads: ${threads}, processors: [ { test_upper: {} } ] }
output: { test_sink: { name: ${name}, fail_writes: 40 } }
`);
      // 40 failed writes over 5 batches (8 each) take at least 2+4+…+256 ms of replay back-off.
      const running = s.run();
      await untilRead(s, name, 10, 2);
      assert.equal(await s.stop(100), false);
      assert.equal(s.undelivered, 10, 'all ten are owed');
      assert.deepEqual(seen.acks.get(name), { ok: 0, nack: 0 }, 'nothing was acked at the input');
      // The stream keeps trying after the deadline (the CLI exits 1 then); here it gets through.
      await running;
      assert.equal(s.undelivered, 0);
      assert.deepEqual(seen.acks.get(name), { ok: 5, nack: 0 });
    });
  }

  it('counts what a broker input read once, at its children, in what stop() reports', async () => {
    const s = streamOf(`
input:
  broker:
    inputs:
      - test_source: { name: sbk1, count: 4, batch_size: 2, hold: true }
      - test_source: { name: sbk2, count: 6, batch_size: 2, hold: true }
pipeline: { threads: 1 }
output: { test_sink: { name: sbk, fail_writes: 40 } }
`);
    const running = s.run();
    for (let i = 0; s.undelivered < 10 && i < 2000; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(await s.stop(100), false);
    assert.equal(s.undelivered, 10, 'ten read, ten owed (not twenty)');
    await running;
    assert.equal(s.undelivered, 0);
  });
});

describe('stream: output broker', () => {
  it("runs the broker's own processors and batching before it routes, and acks every transaction", async () => {
    const s = streamOf(`
input: { test_source: { name: bp, count: 5 } }
pipeline: { threads: 1 }
output:
  broker:
    pattern: fan_out
    outputs:
      - test_sink: { name: bpa }
      - test_sink: { name: bpb, fail_writes: 1 }
    batching: { count: 2, period: 5s }
  processors: [ { test_drop: { on: ["1"] } } ]
`);
    await s.run();
    assert.deepEqual(
      seen.delivered.get('bpa'),
      [
        ['0', '2'],
        ['3', '4'],
      ],
      'filtered, then batched, then routed',
    );
    const retried = seen.delivered
      .get('bpb')!
      .map((b) => b.join())
      .sort();
    assert.deepEqual(retried, ['0,2', '3,4'], 'the failed write was retried on that output alone, the same batch');
    assert.deepEqual(seen.acks.get('bp'), { ok: 5, nack: 0 });
  });

  it('fan_out delivers every message to every output, retrying only the failing one', async () => {
    const s = streamOf(`
input: { test_source: { name: f1, count: 5 } }
pipeline: { threads: 1 }
output:
  broker:
    pattern: fan_out
    outputs:
      - test_sink: { name: f1a }
      - test_sink: { name: f1b, fail_writes: 3 }
`);
    await s.run();
    assert.deepEqual(all('f1a'), range(5), 'the healthy output gets each message exactly once');
    assert.deepEqual([...all('f1b')].sort(), range(5));
    assert.deepEqual(seen.acks.get('f1'), { ok: 5, nack: 0 });
  });

  it('fan_out_fail_fast nacks on a failure (the input replays to all outputs)', async () => {
    const s = streamOf(`
input: { test_source: { name: f2, count: 2 } }
pipeline: { threads: 1 }
output:
  broker:
    pattern: fan_out_fail_fast
    outputs:
      - test_sink: { name: f2a }
      - test_sink: { name: f2b, fail_writes: 1 }
`);
    await s.run();
    assert.ok(all('f2a').length >= 2, 'replays may duplicate on the healthy output (at least once)');
    assert.deepEqual([...new Set(all('f2a'))].sort(), ['0', '1']);
    assert.deepEqual([...all('f2b')].sort(), ['0', '1']);
  });

  it('fan_out_sequential writes outputs in order', async () => {
    const s = streamOf(`
input: { test_source: { name: f3, count: 3 } }
pipeline: { threads: 1 }
output:
  broker:
    pattern: fan_out_sequential
    outputs:
      - test_sink: { name: f3a, delay_ms: 5 }
      - test_sink: { name: f3b }
`);
    await s.run();
    assert.deepEqual(all('f3a'), range(3));
    assert.deepEqual(all('f3b'), range(3));
  });

  it('round_robin spreads messages and moves on to the next output on failure', async () => {
    const s = streamOf(`
input: { test_source: { name: rr, count: 6 } }
pipeline: { threads: 1 }
output:
  broker:
    pattern: round_robin
    outputs:
      - test_sink: { name: rra }
      - test_sink: { name: rrb }
      - test_sink: { name: rrc, fail_writes: 100 }
`);
    await s.run();
    const a = all('rra'),
      b = all('rrb');
    assert.deepEqual([...a, ...b].sort(), range(6));
    assert.equal(all('rrc').length, 0);
    assert.ok(a.length >= 2 && b.length >= 2);
  });

  it('greedy delivers each message once across outputs', async () => {
    const s = streamOf(`
input: { test_source: { name: g1, count: 20 } }
pipeline: { threads: 1 }
output:
  broker:
    pattern: greedy
    outputs:
      - test_sink: { name: g1a, delay_ms: 2 }
      - test_sink: { name: g1b }
`);
    await s.run();
    assert.deepEqual(
      [...all('g1a'), ...all('g1b')].sort((x, y) => +x - +y),
      range(20),
    );
  });

  it('copies creates the list of outputs that many times', async () => {
    const s = streamOf(`
input: { test_source: { name: cp, count: 4 } }
pipeline: { threads: 1 }
output:
  broker:
    copies: 2
    pattern: round_robin
    outputs:
      - test_sink: { name: cpa }
`);
    await s.run();
    assert.equal(seen.instances.get('cpa'), 2);
    assert.deepEqual(all('cpa').sort(), range(4));
  });
});

describe('stream: input broker', () => {
  it('merges every child and ends when all have ended', async () => {
    const s = streamOf(`
input:
  broker:
    inputs:
      - test_source: { name: m1, count: 3 }
      - test_source: { name: m2, count: 4 }
pipeline: { threads: 1 }
output: { test_sink: { name: m } }
`);
    await s.run();
    assert.equal(all('m').length, 7);
    assert.deepEqual(seen.acks.get('m1'), { ok: 3, nack: 0 });
    assert.deepEqual(seen.acks.get('m2'), { ok: 4, nack: 0 });
  });

  it('runs input processors after the child and broker processors after them', async () => {
    const s = streamOf(`
input:
  broker:
    inputs:
      - test_source: { name: ip, count: 2 }
        processors: [ { test_throw: { on: ["0"] } } ]
  processors: [ { test_split: {} } ]
pipeline: { threads: 1 }
output: { test_sink: { name: ip } }
`);
    await s.run();
    assert.deepEqual(all('ip'), ['0!boom (test)', '1']);
  });
});
