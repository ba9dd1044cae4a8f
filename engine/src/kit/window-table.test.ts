/**
 * The shared window table: windows per key, the unkeyed window, costs, windows that never end,
 * eviction when full, and exact counting across real worker threads sharing the buffer.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { FOREVER, WindowTable, windowTableBytes } from './window-table.js';

describe('window table', () => {
  it('admits capacity per window from the first request, then refuses until the window ends', () => {
    let now = 1_000_000;
    const t = new WindowTable(new SharedArrayBuffer(windowTableBytes(16)), () => now);
    const taken = Array.from({ length: 4 }, () => t.take('k', 3, 1000));
    assert.deepEqual(
      taken.map((w) => [w.blocked, w.remaining]),
      [
        [false, 2],
        [false, 1],
        [false, 0],
        [true, 0],
      ],
    );
    now += 400;
    assert.equal(t.take('k', 3, 1000).resetMs, 600);
    now += 600;
    assert.equal(t.take('k', 3, 1000).blocked, false, 'a new window');
    assert.equal(t.take('other', 1, 1000).blocked, false, 'keys count apart');
  });

  it('has one unkeyed window, apart from every key (the empty key included)', () => {
    const t = new WindowTable(new SharedArrayBuffer(windowTableBytes(16)));
    assert.equal(t.take(undefined, 1, 60_000).blocked, false);
    assert.equal(t.take(undefined, 1, 60_000).blocked, true);
    assert.equal(t.take('', 1, 60_000).blocked, false);
    assert.equal(t.take('k', 1, 60_000).blocked, false);
  });

  it('charges a cost per request (the distributed limiter charges one per live instance)', () => {
    const t = new WindowTable(new SharedArrayBuffer(windowTableBytes(16)));
    let admitted = 0;
    for (let i = 0; i < 100; i++) if (!t.take('k', 100, 60_000, 3).blocked) admitted++;
    assert.equal(admitted, 33, '100 / 3 instances');
  });

  it('a window that never ends (a quota without renewal) stays spent', () => {
    let now = 1_700_000_000_000;
    const t = new WindowTable(new SharedArrayBuffer(windowTableBytes(16)), () => now);
    t.take('q', 1, FOREVER);
    now += 10 ** 12;
    assert.equal(t.take('q', 1, FOREVER).blocked, true);
  });

  it('a full table gives up its stalest window: it admits rather than refuses', () => {
    let now = 1;
    const t = new WindowTable(new SharedArrayBuffer(windowTableBytes(1)), () => now);
    for (let i = 0; i < 100; i++) {
      now++;
      t.take(`k${i}`, 1, 10 ** 9);
    }
    // k0 was evicted long ago: it starts afresh.
    assert.equal(t.take('k0', 1, 10 ** 9).blocked, false);
  });

  it('is exact across threads: four workers hammering one key admit exactly the capacity', async () => {
    const sab = new SharedArrayBuffer(windowTableBytes(64));
    const url = new URL('./window-table.js', import.meta.url).href;
    const code = `
      const { workerData, parentPort } = require('node:worker_threads');
      import(workerData.url).then(({ WindowTable }) => {
        const t = new WindowTable(workerData.sab);
        let admitted = 0;
        for (let i = 0; i < 5000; i++) if (!t.take('shared', 7777, 3_600_000).blocked) admitted++;
        parentPort.postMessage(admitted);
      });`;
    const counts = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<number>((resolve, reject) => {
            const w = new Worker(code, { eval: true, workerData: { sab, url } });
            w.once('message', (n: number) => {
              resolve(n);
              void w.terminate();
            });
            w.once('error', reject);
          }),
      ),
    );
    assert.equal(
      counts.reduce((a, b) => a + b, 0),
      7777,
    );
  });
});
