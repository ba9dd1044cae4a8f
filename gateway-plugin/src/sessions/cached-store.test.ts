/**
 * Tyk's local session cache over the session store: a session read is kept 10 s, a write through
 * the cache drops it, and a read that a write overtook is not kept. The store under the cache is
 * the in-memory one, its reads held back by the test where the order matters (the engine test in
 * gateway/processes.test.ts runs the cache over real Redis in two processes).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CachedSessionStore, SESSION_CACHE_MS } from './cached-store.js';
import { MemorySessionStore } from './memory-store.js';
import type { SessionState } from './session.js';

/** The in-memory store, counting reads; while `hold` is set, a read waits until it is released. */
class HeldStore extends MemorySessionStore {
  reads = 0;
  hold: Promise<void> | undefined;
  override async get(keyId: string): Promise<SessionState | undefined> {
    this.reads++;
    const value = this.read(keyId);
    if (this.hold) await this.hold;
    return value;
  }
}

describe('the local session cache', () => {
  it('reads a key from the store once per 10 s; a deletion in the store meanwhile goes unseen, as on a Tyk node', async () => {
    let now = 1_000_000;
    const store = new HeldStore();
    const cache = new CachedSessionStore(store, undefined, 'g', () => now);
    await store.set('k', { org_id: 'a' });
    for (let i = 0; i < 5; i++) assert.deepEqual(await cache.get('k'), { org_id: 'a' });
    assert.equal(store.reads, 1);
    await store.delete('k');
    now += SESSION_CACHE_MS - 1;
    assert.deepEqual(await cache.get('k'), { org_id: 'a' });
    now += 1;
    assert.equal(await cache.get('k'), undefined);
    assert.equal(store.reads, 2);
    // A key not found is read again every time (Tyk keeps found sessions only).
    assert.equal(await cache.get('k'), undefined);
    assert.equal(store.reads, 3);
  });

  it('a write or deletion through the cache is seen by the next read', async () => {
    const store = new HeldStore();
    const cache = new CachedSessionStore(store, undefined, 'g');
    await cache.set('k', { org_id: 'a' });
    assert.deepEqual(await cache.get('k'), { org_id: 'a' });
    await cache.set('k', { org_id: 'b' });
    assert.deepEqual(await cache.get('k'), { org_id: 'b' });
    assert.equal(await cache.delete('k'), true);
    assert.equal(await cache.get('k'), undefined);
  });

  it('a read that a write overtook is returned but not kept', async () => {
    const store = new HeldStore();
    const cache = new CachedSessionStore(store, undefined, 'g');
    await store.set('k', { org_id: 'old' });
    let release!: () => void;
    store.hold = new Promise((r) => (release = r));
    const reading = cache.get('k');
    await cache.set('k', { org_id: 'new' });
    release();
    assert.deepEqual(await reading, { org_id: 'old' });
    store.hold = undefined;
    assert.deepEqual(await cache.get('k'), { org_id: 'new' });
  });
});
