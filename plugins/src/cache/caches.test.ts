/**
 * The in-process caches' own rules (expiry, compaction, eviction, the file cache's folder, the
 * multilevel read-through), and the caches at several pipeline threads: one memory cache
 * deduplicates across every worker.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { buildComponent, testContext } from '@svc/engine/testing';
import { defineStream, registry, type Cache } from '@svc/engine';
import { runPeer } from '../testing/benthos-peer.js';
import { FileCache } from './file.js';
import { LruCache } from './lru.js';
import { SimpleLru } from './lru-algorithms.js';
import { MemoryCache } from './memory.js';
import { TtlruCache } from './ttlru.js';
import './index.js';
import '../redis/cache.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-cache-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const b = (s: string) => Buffer.from(s);
const text = (v: Buffer | undefined) => v?.toString();
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('memory cache', () => {
  it('an item expires after its ttl; init values never do; add finds an expired item until a compaction removes it (as Benthos)', () => {
    let clock = 1_000;
    const c = new MemoryCache(60_000, 5, { fixed: 'v' }, () => clock);
    c.set('short', b('s'), 1);
    c.set('long', b('l'));
    clock += 20;
    assert.equal(c.get('short'), undefined, 'expired: a get does not see it');
    assert.equal(c.add('short', b('again')), false, 'not compacted yet: add still finds it');
    c.set('other', b('o')); // a write compacts (the interval passed)
    assert.equal(c.add('short', b('again')), true, 'compacted away: add sets it');
    assert.equal(text(c.get('long')), 'l');
    assert.equal(text(c.get('fixed')), 'v');
  });

  it('compaction_interval "" disables expiry', async () => {
    const c = (await buildComponent<Cache>('cache', 'memory', { compaction_interval: '', default_ttl: '1ms' })) as MemoryCache;
    c.set('k', b('v'));
    await pause(10);
    assert.equal(text(c.get('k')), 'v');
  });
});

describe('lru and ttlru caches', () => {
  it('lru evicts the least recently used; a get counts as a use, an add of an existing key does not', () => {
    const c = new LruCache(new SimpleLru(2));
    c.set('a', b('1'));
    c.set('b', b('2'));
    c.get('a');
    c.set('c', b('3'));
    assert.deepEqual([text(c.get('a')), text(c.get('b')), text(c.get('c'))], ['1', undefined, '3']);
    assert.equal(c.add('a', b('x')), false);
    assert.equal(text(c.get('a')), '1');
  });

  it('ttlru expires entries default_ttl after they were written, and evicts the least recent when full', () => {
    let clock = 1_000;
    const c = new TtlruCache(2, 15, () => clock);
    c.set('a', b('1'));
    c.set('b', b('2'));
    c.set('c', b('3'));
    assert.equal(c.get('a'), undefined, 'evicted');
    assert.equal(text(c.get('b')), '2');
    clock += 30;
    assert.equal(c.get('b'), undefined, 'expired');
    assert.equal(c.add('b', b('again')), true);
  });

  it('refuses what Benthos refuses, and what is not implemented', async () => {
    await assert.rejects(buildComponent('cache', 'lru', { cap: 0 }), /invalid lru cache parameter capacity: must be bigger than 0/);
    await assert.rejects(buildComponent('cache', 'ttlru', { default_ttl: '0s' }), /invalid ttlru cache parameter default_ttl: must be bigger than 0s/);
    await assert.rejects(buildComponent('cache', 'multilevel', ['one']), /expected at least two cache levels, found 1/);
  });
});

describe('file cache', () => {
  it('keeps each key as a file under the directory; add does not overwrite; a key leaving the directory is refused', async () => {
    const d = join(dir, 'files');
    const c = new FileCache(d);
    await c.set('a/b', b('v1'));
    assert.equal(readFileSync(join(d, 'a/b'), 'utf8'), 'v1');
    assert.equal(await c.add('a/b', b('v2')), false);
    assert.equal(text(await c.get('a/b')), 'v1');
    assert.equal(await c.get('missing'), undefined);
    await c.delete('a/b');
    assert.equal(existsSync(join(d, 'a/b')), false);
    await assert.rejects(c.delete('a/b'), /ENOENT/, 'as Benthos: deleting a key that is not there fails');
    await assert.rejects(c.set('../escape', b('x')), /leaves the cache directory/);
    assert.equal(existsSync(join(dir, 'escape')), false);
  });
});

describe('multilevel cache', () => {
  it('reads through the levels and fills the faster ones; add asks every level', async () => {
    const hot = new MemoryCache(60_000, 0, {});
    const cold = new MemoryCache(60_000, 0, { k: 'from-cold' });
    const ctx = testContext({ type: 'multilevel', resources: { cache: { hot, cold } } });
    const c = await buildComponent<Cache>('cache', 'multilevel', ['hot', 'cold'], ctx);
    assert.equal(text(await c.get('k')), 'from-cold');
    assert.equal(text(hot.get('k')), 'from-cold', 'written into the faster level');
    assert.equal(await c.add('k', b('x')), false);
    assert.equal(await c.add('new', b('n')), true);
    assert.deepEqual([text(hot.get('new')), text(cold.get('new'))], ['n', 'n']);
    await c.delete('new');
    assert.deepEqual([hot.get('new'), cold.get('new')], [undefined, undefined]);
  });
});

describe('caches across pipeline threads', () => {
  it('dedupe on a memory cache drops every duplicate at threads 3 (one cache for all workers)', async () => {
    const r = await runPeer(
      'svc',
      `input:
  generate: { count: 300, interval: "", batch_size: 10, mapping: 'root = {"id": count("ids") % 50}' }
pipeline:
  threads: 3
  dispatch: pool
  processors:
    - dedupe: { cache: seen, key: '\${! this.id }' }
output:
  stdout: {}
cache_resources:
  - label: seen
    memory: {}
`,
    );
    assert.equal(r.code, 0, r.stderr);
    const ids = r.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: number }).id)
      .sort((x, y) => x - y);
    assert.deepEqual(
      ids,
      Array.from({ length: 50 }, (_, i) => i),
    );
  });
});

describe('the caches’ documentation', () => {
  it('every example of the caches and cache processors is a valid config', async () => {
    for (const [kind, names] of [
      ['cache', ['memory', 'lru', 'ttlru', 'file', 'multilevel', 'redis']],
      ['processor', ['cache', 'cached', 'dedupe']],
      ['output', ['cache']],
    ] as const) {
      for (const name of names) {
        const examples = registry().get(kind, name)?.spec.examples ?? [];
        assert.ok(examples.length > 0, `${kind} ${name} has an example`);
        for (const yaml of examples) await defineStream({ yaml, file: `${name}-example.yaml` });
      }
    }
  });
});
