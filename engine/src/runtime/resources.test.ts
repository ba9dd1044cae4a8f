/**
 * Named resources (Benthos' `*_resources`) and main-thread affinity: a component names a resource
 * by kind and label and gets the one instance; a `mainThread` processor or cache is that one
 * instance for every pipeline thread, reached from workers through a stand-in.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig, validateConfig } from '../config/load.js';
import { ConfigError } from '../errors.js';
import { registry } from '../plugin/registry.js';
import { configOf, streamOf } from '../testing/run-config.js';
import { seen } from '../testing/test-plugin.js';

const all = (name: string) => seen.delivered.get(name)!.flat();

describe('main-thread affinity', () => {
  it('a mainThread processor runs on the main thread for every pipeline thread, as one instance', async () => {
    const s = streamOf(`
input: { test_source: { name: mt1, count: 60, batch_size: 3 } }
pipeline:
  threads: 3
  dispatch: pool
  processors: [ { test_upper: {} }, { test_main_thread: {} } ]
output: { test_sink: { name: mt1 } }
`);
    await s.run();
    const out = all('mt1');
    assert.equal(out.length, 60);
    // test_upper ran on a worker (a thread id other than 0), test_main_thread on the main thread.
    for (const text of out) assert.match(text, /^\d+@[1-9]\d*:\d+@0$/, text);
    const counts = out.map((t) => Number(/:(\d+)@0$/.exec(t)![1])).sort((a, b) => a - b);
    assert.deepEqual(
      counts,
      Array.from({ length: 60 }, (_, i) => i + 1),
      'one instance counted every message once',
    );
  });

  it('a mainThread cache resource is one cache for all threads: a key added on one worker is there on the others', async () => {
    const s = streamOf(`
input:
  broker:
    inputs:
      - test_source: { name: mtc1, count: 30, batch_size: 2 }
      - test_source: { name: mtc2, count: 30, batch_size: 3 }
pipeline:
  threads: 3
  dispatch: pool
  processors: [ { test_first_seen: { resource: seen_keys } } ]
output: { test_sink: { name: mtc } }
cache_resources:
  - label: seen_keys
    test_map: {}
`);
    await s.run();
    const out = all('mtc');
    assert.deepEqual(
      [...out].sort((a, b) => Number(a) - Number(b)),
      Array.from({ length: 30 }, (_, i) => String(i)),
      'each key passed exactly once',
    );
  });
});

describe('main-thread affinity and ctx', () => {
  it('a mainThread processor called from a worker sees the crossing ctx values, and what it sets comes back', async () => {
    const s = streamOf(`
input: { test_ctx_source: { name: mtctx, texts: [ a, b, c ] } }
pipeline:
  threads: 2
  dispatch: pool
  processors: [ { test_upper: {} }, { test_main_ctx_probe: {} } ]
output: { test_ctx_sink: { name: mtctx } }
`);
    await s.run();
    assert.deepEqual(
      seen.ctxAtAck.get('mtctx')!.map((a) => [a.tenant, a.seen, a.live]),
      [0, 1, 2].map((i) => [`tenant-${i}`, `tenant=tenant-${i} main=true`, `live-${i}`]),
    );
  });
});

describe('main-thread affinity and answers', () => {
  it('a message a mainThread processor answers from a worker skips the processors after it and the output, as on one thread', async () => {
    const s = streamOf(`
input: { test_source: { name: mtans, count: 30, batch_size: 3 } }
pipeline:
  threads: 2
  dispatch: pool
  processors: [ { test_main_answer: {} }, { test_upper: {} } ]
output: { test_sink: { name: mtans } }
`);
    await s.run();
    const out = all('mtans').map((t) => Number(t.split('@')[0]));
    assert.deepEqual(
      out.sort((a, b) => a - b),
      Array.from({ length: 30 }, (_, i) => i).filter((i) => i % 3 !== 0),
    );
  });
});

describe('main-thread affinity through a resource', () => {
  it('a mainThread processor resource named from the pipeline is the one main-thread instance on every worker', async () => {
    const s = streamOf(`
input: { test_source: { name: mt2, count: 40, batch_size: 4 } }
pipeline:
  threads: 3
  dispatch: pool
  processors: [ { resource: numbered }, { resource: numbered } ]
output: { test_sink: { name: mt2 } }
processor_resources:
  - label: numbered
    test_main_thread: {}
`);
    await s.run();
    const counts = all('mt2')
      .flatMap((t) => [...t.matchAll(/:(\d+)@0/g)].map((m) => Number(m[1])))
      .sort((a, b) => a - b);
    assert.deepEqual(
      counts,
      Array.from({ length: 80 }, (_, i) => i + 1),
      'each message numbered twice by one instance',
    );
  });
});

describe('resources', () => {
  it('the resource input, processor and output stand for the resources of their label, on workers too', async () => {
    const s = streamOf(`
input: { resource: in }
pipeline:
  threads: 2
  dispatch: pool
  processors: [ { resource: shout }, { resource: shout } ]
output: { resource: out }
input_resources:
  - label: in
    test_source: { name: res1, count: 8, batch_size: 2 }
processor_resources:
  - label: shout
    test_upper: {}
output_resources:
  - label: out
    test_sink: { name: res1 }
`);
    await s.run();
    const out = all('res1');
    assert.equal(out.length, 8);
    for (const t of out) assert.match(t, /^\d+@[1-9]\d*@[1-9]\d*$/, `ran the resource twice on a worker: ${t}`);
    assert.deepEqual(seen.acks.get('res1'), { ok: 4, nack: 0 });
  });

  it('a resource nobody declared is a start-up error naming the section to add it to (Benthos: "was not found")', async () => {
    const s = streamOf(`
input: { test_source: { name: res2, count: 1 } }
pipeline: { threads: 1, processors: [ { resource: nope } ] }
output: { test_sink: { name: res2 } }
`);
    await assert.rejects(s.run(), /processor resource 'nope' was not found: add it under processor_resources with that label/);
  });

  it('-r files add their resources; a label without a resource or shared with the config is an error, as in Benthos', () => {
    const main = parseConfig('input: { test_source: {} }\noutput: { test_sink: {} }\nprocessor_resources:\n  - label: a\n    test_upper: {}\n', 'main.yaml');
    const extra = parseConfig('processor_resources:\n  - label: b\n    test_upper: {}\ncache_resources:\n  - label: c\n    test_map: {}\n', 'r.yaml');
    const { config, issues } = validateConfig(main, registry(), [extra]);
    assert.deepEqual(issues, []);
    assert.deepEqual(
      config.processor_resources.map((c) => [c.label, c.path]),
      [
        ['a', 'root.processor_resources.0'],
        ['b', 'root.processor_resources.1'],
      ],
    );
    assert.deepEqual(
      config.cache_resources.map((c) => [c.label, c.type]),
      [['c', 'test_map']],
    );
    const clash = parseConfig('processor_resources:\n  - label: a\n    test_upper: {}\n  - test_upper: {}\n', 'r2.yaml');
    const bad = validateConfig(main, registry(), [clash]).issues.map((i) => `${i.file}: ${i.message}`);
    assert.deepEqual(bad, [
      'r2.yaml: root.processor_resources.1: the label field for resources must be unique and not empty',
      "r2.yaml: processor resource label 'a' collides with a previously defined resource",
    ]);
  });

  it('lint knows the resource sections and the resource components', () => {
    assert.throws(
      () => configOf('cache_resources:\n  - label: c\n    no_such_cache: {}\n'),
      (err: unknown) => err instanceof ConfigError && /no_such_cache/.test(err.message),
    );
    configOf('input: { resource: x }\noutput: { resource: y }\npipeline: { processors: [ { resource: z } ] }\n');
  });
});
