import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Deadline } from './deadline.js';

/** Resolves once `cond()` holds, polling; rejects after `ms`. */
async function until(cond: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('Deadline (one timer per length)', () => {
  it('expires every deadline of one length in the order they were made, and never a cleared one', async () => {
    const fired: number[] = [];
    const ds = Array.from({ length: 5 }, (_, i) => {
      const d = new Deadline(30);
      d.on(() => fired.push(i));
      return d;
    });
    ds[0]!.clear(); // the head
    ds[2]!.clear(); // the middle
    ds[4]!.clear(); // the tail
    await until(() => fired.length === 2);
    assert.deepEqual(fired, [1, 3]);
    assert.equal(ds[1]!.expired, true);
    assert.equal(ds[0]!.expired, false);
    // A deadline made after the queue emptied arms the timer again.
    const late = new Deadline(30);
    let lateFired = false;
    late.on(() => (lateFired = true));
    await until(() => lateFired);
    assert.equal(late.expired, true);
  });

  it('keeps deadlines of different lengths apart: a short one expires before an older long one', async () => {
    const fired: string[] = [];
    const long = new Deadline(400);
    long.on(() => fired.push('long'));
    const short = new Deadline(20);
    short.on(() => fired.push('short'));
    await until(() => fired.length === 1);
    assert.deepEqual(fired, ['short']);
    long.clear();
  });

  it('replaces the handler per phase, and a cleared handler is not called when the time comes', async () => {
    const fired: string[] = [];
    const d = new Deadline(20);
    d.on(() => fired.push('body'));
    d.on(() => fired.push('delivery'));
    const other = new Deadline(20);
    other.on(() => fired.push('other'));
    await until(() => other.expired);
    assert.deepEqual(fired.sort(), ['delivery', 'other']);
  });
});
