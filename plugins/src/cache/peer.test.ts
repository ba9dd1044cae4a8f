/**
 * The caches and the processors that use them, run on svc and on Benthos v4.51.0 with the same
 * YAML: each config's output lines (as JSON) must be the same. Benthos is skipped, saying so, when
 * it is not built; svc's output is checked against the expected lines either way.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { benthosMissing, peerDir, runBoth } from '../testing/benthos-peer.js';

const json = (out: string): unknown[] =>
  out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as unknown);

/** Runs the config on both, checks svc's lines against `expected` and Benthos' against svc's. */
async function same(t: TestContext, yaml: string | ((w: 'svc' | 'benthos') => string), expected: unknown[]): Promise<void> {
  const { svc, benthos } = await runBoth(yaml);
  assert.equal(svc.code, 0, svc.stderr);
  assert.deepEqual(json(svc.stdout), expected, svc.stderr);
  if (!benthos) return t.diagnostic(benthosMissing!);
  assert.equal(benthos.code, 0, benthos.stderr);
  assert.deepEqual(json(benthos.stdout), json(svc.stdout), 'svc and Benthos printed the same');
}

const generate = (count: number, mapping: string) =>
  `input:\n  generate:\n    count: ${count}\n    interval: ""\n    mapping: '${mapping}'\noutput:\n  stdout: {}\n`;

/** The caches to run the same add test on; a file cache gets a folder per engine. */
const CACHES: Record<string, () => string> = {
  memory: () => 'memory: {}',
  lru: () => 'lru: { cap: 10 }',
  ttlru: () => 'ttlru: {}',
  file: () => `file: { directory: ${peerDir()} }`,
  multilevel: () => 'multilevel: [ hot, cold ]\n  - label: hot\n    memory: {}\n  - label: cold\n    lru: {}',
};

describe('caches on svc and Benthos', () => {
  for (const [name, conf] of Object.entries(CACHES)) {
    it(`${name}: add sets a new key and refuses one already there with "key already exists"`, async (t) => {
      await same(
        t,
        () => `${generate(6, 'root = {"id": (count("ids") % 3).string(), "n": count("n")}')}
pipeline:
  threads: 1
  processors:
    - cache: { resource: c, operator: add, key: '\${! this.id }', value: '\${! this.n }' }
    - mapping: 'root = this.merge({"err": error()})'
cache_resources:
  - label: c
    ${conf()}
`,
        [1, 2, 3, 4, 5, 6].map((n) => ({ id: String(n % 3), n, err: n <= 3 ? null : `key already exists: ${n % 3}` })),
      );
    });
  }

  for (const cache of [
    'lru: { cap: 4, algorithm: standard }',
    'lru: { cap: 4, algorithm: two_queues }',
    'lru: { cap: 4, algorithm: arc }',
    'ttlru: { cap: 4 }',
  ]) {
    it(`${cache}: keeps the same keys as Benthos' under a mix of recent and frequent keys`, async (t) => {
      const hits = (out: string) =>
        out
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { a: string; b: string });
      const yaml = `${generate(60, 'root = {"n": count("n")}')}
pipeline:
  threads: 1
  processors:
    - mapping: |
        meta a = ((this.n * this.n) % 11).string()
        meta b = (this.n % 3).string()
        root = ""
    - cache: { resource: c, operator: exists, key: 'a\${! meta("a") }' }
    - mapping: 'meta hit_a = content().string()'
    - cache: { resource: c, operator: set, key: 'a\${! meta("a") }', value: x }
    - cache: { resource: c, operator: exists, key: 'b\${! meta("b") }' }
    - mapping: 'meta hit_b = content().string()'
    - cache: { resource: c, operator: set, key: 'b\${! meta("b") }', value: x }
    - mapping: 'root = {"a": meta("hit_a"), "b": meta("hit_b")}'
cache_resources:
  - label: c
    ${cache}
`;
      const { svc, benthos } = await runBoth(yaml);
      assert.equal(svc.code, 0, svc.stderr);
      const mine = hits(svc.stdout);
      assert.equal(mine.length, 60);
      assert.ok(mine.some((h) => h.a === 'true') && mine.some((h) => h.a === 'false'), 'some keys stayed, some were evicted');
      if (!benthos) return t.diagnostic(benthosMissing!);
      assert.equal(benthos.code, 0, benthos.stderr);
      assert.deepEqual(mine, hits(benthos.stdout));
    });
  }

  it('set and get: a value set by one message is read by the next; init_values; a missing key is an error', async (t) => {
    await same(
      t,
      `${generate(4, 'root = {"n": count("n")}')}
pipeline:
  threads: 1
  processors:
    - cache: { resource: c, operator: set, key: 'k\${! this.n }', value: 'v\${! this.n * 10 }' }
    - cache:
        resource: c
        operator: get
        key: '\${! if this.n == 3 { "static" } else { "k" + (this.n - 1).string() } }'
    - mapping: 'root = {"got": content().string(), "err": error()}'
cache_resources:
  - label: c
    memory:
      init_values:
        static: from-init
`,
      [
        { got: '{"n":1}', err: "operator failed for key 'k0': key does not exist" },
        { got: 'v10', err: null },
        { got: 'from-init', err: null },
        { got: 'v30', err: null },
      ],
    );
  });

  it('exists and delete', async (t) => {
    await same(
      t,
      `${generate(3, 'root = {"n": count("n")}')}
pipeline:
  threads: 1
  processors:
    - mapping: 'meta n = this.n.string()'
    - cache: { resource: c, operator: exists, key: k }
    - mapping: |
        meta before = content().string()
        root = ""
    - cache: { resource: c, operator: delete, key: '\${! if meta("n") == "2" { "k" } else { "nothing" } }' }
    - cache: { resource: c, operator: set, key: '\${! if meta("n") == "2" { "unused" } else { "k" } }', value: x }
    - mapping: 'root = {"n": meta("n"), "before": meta("before"), "err": error()}'
cache_resources:
  - label: c
    memory: {}
`,
      [
        { n: '1', before: 'false', err: null },
        { n: '2', before: 'true', err: null },
        { n: '3', before: 'false', err: null },
      ],
    );
  });

  it('dedupe drops a key seen before, and a message whose key cannot be interpolated', async (t) => {
    await same(
      t,
      `${generate(6, 'root = {"id": count("ids") % 2, "n": count("n")}')}
pipeline:
  threads: 1
  processors:
    - dedupe:
        cache: c
        key: '\${! if this.n == 1 { throw("boom") } else { this.id } }'
    - mapping: 'root = this.merge({"err": error()})'
cache_resources:
  - label: c
    memory: {}
`,
      [
        { id: 0, n: 2, err: null },
        { id: 1, n: 3, err: null },
      ],
    );
  });

  it('cached runs the processors once per key and gives the cached result after', async (t) => {
    await same(
      t,
      `${generate(5, 'root = {"id": count("ids") % 2, "n": count("n")}')}
pipeline:
  threads: 1
  processors:
    - cached:
        cache: c
        key: 'id-\${! this.id }'
        processors:
          - mapping: 'root = this.merge({"computed": count("computed")})'
cache_resources:
  - label: c
    memory: {}
`,
      [
        { id: 1, n: 1, computed: 1 },
        { id: 0, n: 2, computed: 2 },
        { id: 1, n: 1, computed: 1 },
        { id: 0, n: 2, computed: 2 },
        { id: 1, n: 1, computed: 1 },
      ],
    );
  });

  it('the cache output stores each message under its key, as Benthos does', async (t) => {
    const dirs = { svc: peerDir(), benthos: peerDir() };
    const { svc, benthos } = await runBoth(
      (w) => `input:
  generate: { count: 3, interval: "", mapping: 'root = {"n": count("n")}' }
output:
  cache: { target: disk, key: 'k\${! this.n }' }
cache_resources:
  - label: disk
    file: { directory: ${dirs[w]} }
`,
    );
    const stored = (d: string) => Object.fromEntries(readdirSync(d).map((f) => [f, readFileSync(join(d, f), 'utf8')]));
    assert.equal(svc.code, 0, svc.stderr);
    assert.deepEqual(stored(dirs.svc), { k1: '{"n":1}', k2: '{"n":2}', k3: '{"n":3}' });
    if (!benthos) return t.diagnostic(benthosMissing!);
    assert.equal(benthos.code, 0, benthos.stderr);
    assert.deepEqual(stored(dirs.benthos), stored(dirs.svc));
  });

  it('a cache processor naming a cache nobody declared stops the engine with the same words', async (t) => {
    const { svc, benthos } = await runBoth(`${generate(1, 'root = 1')}pipeline:\n  processors:\n    - cache: { resource: nope, operator: get, key: a }\n`);
    assert.notEqual(svc.code, 0);
    assert.match(svc.stderr, /cache resource 'nope' was not found/);
    if (!benthos) return t.diagnostic(benthosMissing!);
    assert.match(benthos.stderr + benthos.stdout, /cache resource 'nope' was not found/);
  });
});
