/** The primary's bounded store (the node's memory response cache): expiry, and the byte bound, oldest first. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExpiringStore } from './expiring-store.js';

describe('ExpiringStore', () => {
  it('serves a value until its expiry, not after', () => {
    const s = new ExpiringStore(100);
    s.set('a', 'x', 2_000);
    assert.equal(s.get('a', 1_999), 'x');
    assert.equal(s.get('a', 2_000), undefined);
  });

  it('never holds more than its bytes: the oldest go first, a value too large is not kept', () => {
    const s = new ExpiringStore(10);
    const forever = Number.MAX_SAFE_INTEGER;
    s.set('a', 'aaaa', forever);
    s.set('b', 'bbbb', forever);
    s.set('a', 'AAAA', forever);
    s.set('c', 'cccc', forever);
    assert.deepEqual(
      ['a', 'b', 'c'].map((k) => s.get(k)),
      ['AAAA', undefined, 'cccc'],
    );
    s.set('big', 'x'.repeat(11), forever);
    assert.deepEqual(
      ['a', 'c', 'big'].map((k) => s.get(k)),
      ['AAAA', 'cccc', undefined],
    );
  });

  it('drops the keys of one prefix (an API emptied from the response cache), their bytes freed', () => {
    const s = new ExpiringStore(12);
    const forever = Number.MAX_SAFE_INTEGER;
    s.set('a\u0000x', 'aaaa', forever);
    s.set('a\u0000y', 'aaaa', forever);
    s.set('ab\u0000x', 'bbbb', forever);
    assert.equal(s.deletePrefix('a\u0000'), 2);
    assert.deepEqual([s.get('a\u0000x'), s.get('ab\u0000x')], [undefined, 'bbbb']);
    s.set('c', 'cccc', forever);
    s.set('d', 'dddd', forever);
    assert.equal(s.get('ab\u0000x'), 'bbbb', 'the dropped values no longer count against the bound');
  });
});
