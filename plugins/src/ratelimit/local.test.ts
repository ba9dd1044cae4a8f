import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { describe, it } from 'node:test';
import { windowTableBytes } from '@svc/engine/kit';
import { LocalRateLimit } from './local.js';

const table = (maxKeys = 16) => new SharedArrayBuffer(windowTableBytes(maxKeys));

describe('local rate limit', () => {
  it('allows count accesses per interval, then says how long to wait', () => {
    let now = 1_000_000;
    const rl = new LocalRateLimit(table(), 3, 1000, () => now);
    assert.deepEqual([rl.access(), rl.access(), rl.access()], [0, 0, 0]);
    assert.equal(rl.access(), 1000);
    now += 400;
    assert.equal(rl.access(), 600);
    now += 600;
    assert.equal(rl.access(), 0, 'a new window');
  });

  it('handles clocks beyond 32 bits', () => {
    let now = Date.UTC(2100, 0, 1);
    const rl = new LocalRateLimit(table(), 1, 50, () => now);
    assert.equal(rl.access(), 0);
    assert.equal(rl.access(), 50);
    assert.equal(rl.access('k'), 0);
    assert.equal(rl.access('k'), 50);
    now += 50;
    assert.equal(rl.access(), 0);
    assert.equal(rl.access('k'), 0);
  });

  it('keeps one bucket per key, independent of each other and of the unkeyed one', () => {
    let now = 5_000;
    const rl = new LocalRateLimit(table(), 2, 1000, () => now);
    assert.deepEqual([rl.access('api-a'), rl.access('api-a')], [0, 0]);
    assert.equal(rl.access('api-a'), 1000, 'api-a has spent its budget');
    assert.deepEqual([rl.access('api-b'), rl.access('api-b')], [0, 0], 'api-b has its own');
    assert.equal(rl.access('api-b'), 1000);
    assert.deepEqual([rl.access(), rl.access()], [0, 0], 'the unkeyed bucket is a third one');
    assert.equal(rl.access(''), 0, 'the empty key is a key, not the unkeyed bucket');
    now += 250;
    assert.equal(rl.access('api-a'), 750);
    now += 750;
    assert.equal(rl.access('api-a'), 0);
  });

  it('takes cost from the budget; a cost that does not fit waits without taking anything', () => {
    let now = 10_000;
    const rl = new LocalRateLimit(table(), 10, 1000, () => now);
    assert.equal(rl.access('k', 4), 0);
    assert.equal(rl.access('k', 4), 0);
    assert.equal(rl.access('k', 3), 1000, '2 left, 3 asked');
    assert.equal(rl.access('k', 2), 0, 'the refused access took nothing');
    assert.equal(rl.access('k'), 1000);
    now += 1000;
    assert.equal(rl.access('k', 25), 0, 'a cost above count takes a whole fresh window');
    assert.equal(rl.access('k'), 1000);
    assert.throws(() => rl.access('k', 0), /whole number of at least 1/);
    assert.throws(() => rl.access('k', 1.5), /whole number of at least 1/);
  });

  it('when full, a new key takes over the bucket whose window started longest ago', () => {
    let now = 1_000;
    // max_keys 2 → 4 buckets, every key in one neighbourhood.
    const rl = new LocalRateLimit(table(2), 1, 10_000, () => now);
    for (const k of ['a', 'b', 'c', 'd']) {
      assert.equal(rl.access(k), 0);
      now += 10;
    }
    for (const k of ['a', 'b', 'c', 'd']) assert.ok(rl.access(k) > 0, `${k} is held`);
    assert.equal(rl.access('e'), 0, 'e evicts the stalest (a)');
    assert.ok(rl.access('e') > 0, 'e is held now');
    for (const k of ['b', 'c', 'd']) assert.ok(rl.access(k) > 0, `${k} is still held`);
    assert.equal(rl.access('a'), 0, 'a was evicted and starts afresh (taking over b)');
    assert.equal(rl.access('b'), 0, 'b was evicted in turn');
  });

  it('refuses a buffer that is not a table', () => {
    assert.throws(() => new LocalRateLimit(new SharedArrayBuffer(16), 1, 1000), /windowTableBytes/);
  });

  it('is one budget per key for every thread sharing the buffer', async () => {
    const sab = table(64);
    const moduleUrl = new URL('./local.js', import.meta.url).href;
    // Each worker tries 500 accesses on each of two keys (and 500 unkeyed) within one frozen
    // window: together they get exactly count per key (with a budget each, 1000).
    const code = `
      const { workerData, parentPort } = require('node:worker_threads');
      import(workerData.moduleUrl).then(({ LocalRateLimit }) => {
        const rl = new LocalRateLimit(workerData.sab, 700, 60000, () => 5000);
        const granted = { shared: 0, other: 0, unkeyed: 0, cost: 0 };
        for (let i = 0; i < 500; i++) {
          if (rl.access('shared-key') === 0) granted.shared++;
          if (rl.access('other-key') === 0) granted.other++;
          if (rl.access() === 0) granted.unkeyed++;
          if (rl.access('costly', 3) === 0) granted.cost += 3;
        }
        parentPort.postMessage(granted);
      });`;
    const run = () =>
      new Promise<Record<string, number>>((resolve, reject) => {
        const w = new Worker(code, { eval: true, workerData: { sab, moduleUrl } });
        w.once('message', resolve);
        w.once('error', reject);
      });
    const results = await Promise.all([run(), run()]);
    const sum = (k: string) => results.reduce((a, r) => a + r[k]!, 0);
    assert.equal(sum('shared'), 700);
    assert.equal(sum('other'), 700);
    assert.equal(sum('unkeyed'), 700);
    assert.equal(sum('cost'), 699, '233 accesses of 3 fit in 700');
  });
});
