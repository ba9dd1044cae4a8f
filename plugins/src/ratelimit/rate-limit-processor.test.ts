import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Message, type Processor } from '@svc/engine';
import { windowTableBytes } from '@svc/engine/kit';
import { buildComponent, EngineProcess, testContext, waitFor } from '@svc/engine/testing';
import { LocalRateLimit } from './local.js';
import './index.js';

const ENGINE_API = new URL('../../../engine/dist/index.js', import.meta.url).href;

/**
 * A processor that asks the resource once per message and writes down the limiter's answer and the
 * thread that asked (0: the main thread): `admitted 0`, or `wait 3599990 2`. Each message holds its
 * thread for a moment (blocked, not busy), which makes the chain dear enough that the engine starts
 * its workers and sends them batches.
 */
const PROBE = `
import { threadId } from 'node:worker_threads';
import { f, registerProcessor } from ${JSON.stringify(ENGINE_API)};
registerProcessor('rl_probe', {
  summary: 'test: records the rate limit decision for each message',
  config: f.object({ resource: f.string() }),
  factory: (conf, ctx) => {
    const limit = ctx.resources.rateLimit(conf.resource);
    const pause = new Int32Array(new SharedArrayBuffer(4));
    return {
      async process(batch) {
        for (const m of batch) {
          Atomics.wait(pause, 0, 0, 5);
          const r = limit.access();
          const wait = typeof r === 'number' ? r : await r;
          m.content = Buffer.from(wait > 0 ? \`wait \${wait} \${threadId}\` : \`admitted \${threadId}\`);
        }
        return [batch];
      },
    };
  },
});
`;

describe('rate_limit processor', () => {
  it('one budget for the main thread and the workers: count admitted per interval between them, the rest told how long to wait', async () => {
    const plugin = join(mkdtempSync(join(tmpdir(), 'svc-rl-')), 'probe.mjs');
    writeFileSync(plugin, PROBE);
    const e = new EngineProcess(`http: { enabled: false }
logger: { level: WARN }
plugins: [ ${JSON.stringify(plugin)} ]
input:
  generate: { mapping: 'root = "m"', interval: '', batch_size: 1 }
pipeline:
  threads: 2
  processors: [ { rl_probe: { resource: two_per_hour } } ]
output: { stdout: {} }
rate_limit_resources:
  - label: two_per_hour
    local: { count: 2, interval: 1h }
`);
    let out = '';
    e.child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const lines = () =>
      out
        .slice(0, out.lastIndexOf('\n') + 1)
        .split('\n')
        .slice(0, -1);
    const onWorkers = () => lines().filter((l) => !l.endsWith(' 0'));
    try {
      await waitFor(
        'decisions made on a worker thread',
        async () => {
          if (e.done) throw new Error(`the engine exited: ${e.output()}`);
          return onWorkers().length >= 3 ? true : undefined;
        },
        120_000,
        20,
      );
    } finally {
      await e.kill();
    }
    const all = lines();
    assert.deepEqual(
      all.filter((l) => l.startsWith('admitted ')),
      ['admitted 0', 'admitted 0'],
      `two admitted in the hour (the first two, on the main thread), none more on the workers (of ${all.length} decisions, ${onWorkers().length} on workers)`,
    );
    for (const l of all.slice(2)) {
      const wait = Number(/^wait (\d+) \d+$/.exec(l)?.[1]);
      assert.ok(wait > 0 && wait <= 3_600_000, `the rest told to wait for the end of the hour: ${l}`);
    }
  });

  it('holds each message until the limiter admits it: two per window of 200ms across two processors sharing the resource', async (t) => {
    // The limiter's clock and the processor's waits are the timers under test: mocked.
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
    const limit = new LocalRateLimit(new SharedArrayBuffer(windowTableBytes(16)), 2, 200);
    const ctx = () => testContext({ type: 'rate_limit', rateLimits: { two_per_200ms: limit } });
    const procs = await Promise.all([0, 1].map(() => buildComponent<Processor>('processor', 'rate_limit', { resource: 'two_per_200ms' }, ctx())));
    let passed = 0;
    const all = Array.from({ length: 10 }, (_, i) => Promise.resolve(procs[i % 2]!.process([new Message(`m${i}`)])).then(() => passed++));
    const settle = async () => {
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    const seen: number[] = [];
    await settle();
    seen.push(passed);
    for (let w = 1; w <= 4; w++) {
      t.mock.timers.tick(199);
      await settle();
      assert.equal(passed, seen.at(-1), `nothing more passes before window ${w} starts`);
      t.mock.timers.tick(1);
      await settle();
      seen.push(passed);
    }
    assert.deepEqual(seen, [2, 4, 6, 8, 10], 'messages passed at the start of each window');
    await Promise.all(all);
    await Promise.all(procs.map((p) => p.close?.()));
  });
});
