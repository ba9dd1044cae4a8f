import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { describe, it } from 'node:test';
import { LocalRateLimit } from './local.js';

describe('local rate limit', () => {
  it('allows count accesses per interval, then says how long to wait', () => {
    let now = 1_000_000;
    const rl = new LocalRateLimit(new SharedArrayBuffer(16), 3, 1000, () => now);
    assert.deepEqual([rl.access(), rl.access(), rl.access()], [0, 0, 0]);
    assert.equal(rl.access(), 1000);
    now += 400;
    assert.equal(rl.access(), 600);
    now += 600;
    assert.equal(rl.access(), 0, 'a new window');
  });

  it('handles clocks beyond 32 bits', () => {
    let now = Date.UTC(2100, 0, 1);
    const rl = new LocalRateLimit(new SharedArrayBuffer(16), 1, 50, () => now);
    assert.equal(rl.access(), 0);
    assert.equal(rl.access(), 50);
    now += 50;
    assert.equal(rl.access(), 0);
  });

  it('is one budget for every thread sharing the buffer', async () => {
    const sab = new SharedArrayBuffer(16);
    const moduleUrl = new URL('./local.js', import.meta.url).href;
    // Each worker tries 500 accesses within one (frozen) window; together they get exactly count.
    const code = `
      const { workerData, parentPort } = require('node:worker_threads');
      import(workerData.moduleUrl).then(({ LocalRateLimit }) => {
        const rl = new LocalRateLimit(workerData.sab, 700, 60000, () => 5000);
        let granted = 0;
        for (let i = 0; i < 500; i++) if (rl.access() === 0) granted++;
        parentPort.postMessage(granted);
      });`;
    const run = () =>
      new Promise<number>((resolve, reject) => {
        const w = new Worker(code, { eval: true, workerData: { sab, moduleUrl } });
        w.once('message', resolve);
        w.once('error', reject);
      });
    const granted = await Promise.all([run(), run(), run()]);
    assert.equal(granted.reduce((a, b) => a + b, 0), 700);
  });
});
