/**
 * The spans the runtime makes, seen through the `test_memory` tracer (a tracer plugin that keeps
 * finished spans): a root per message at ingestion, ended at its ack, and a child per processor
 * (on the main thread and on workers) and per output write.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemorySpan, seen } from '../testing/test-plugin.js';
import { streamOf } from '../testing/run-config.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

function spansOf(traceIds: Set<string>): MemorySpan[] {
  return seen.spans.filter((s) => traceIds.has(s.traceId));
}

async function traced(yaml: string): Promise<{ roots: MemorySpan[]; all: MemorySpan[]; delivered: string[] }> {
  const before = seen.spans.length;
  const s = streamOf(yaml);
  await s.run();
  const mine = seen.spans.slice(before);
  const roots = mine.filter((sp) => sp.attributes['svc.component.kind'] === 'input');
  const all = spansOf(new Set(roots.map((r) => r.traceId)));
  const name = /name: (\w+)/.exec(yaml)![1]!;
  return { roots, all, delivered: seen.delivered.get(name)!.flat() };
}

function childrenOf(all: MemorySpan[], root: MemorySpan): MemorySpan[] {
  return all.filter((s) => s.parentId === root.spanId);
}

describe('tracing: the runtime’s spans', () => {
  it('starts a root span per message and a child per processor and per write (threads: 1)', async () => {
    const { roots, all } = await traced(`
input: { test_source: { name: tr1, count: 6, batch_size: 3 } }
pipeline:
  threads: 1
  processors:
    - label: thrower
      test_throw: { on: ["4"] }
    - test_upper: {}
output: { label: out, test_sink: { name: tr1 } }
tracer: { test_memory: {} }
`);
    assert.equal(roots.length, 6, 'one root per message');
    assert.equal(new Set(roots.map((r) => r.traceId)).size, 6, 'each its own trace');
    for (const root of roots) {
      assert.equal(root.name, 'test_source');
      assert.equal(root.parentId, undefined);
      assert.equal(root.attributes['svc.component.path'], 'root.input');
      const kids = childrenOf(all, root);
      assert.deepEqual(kids.map((k) => k.name).sort(), ['out', 'test_upper', 'thrower']);
      const byName = new Map(kids.map((k) => [k.name, k]));
      assert.equal(byName.get('thrower')!.attributes['svc.component.path'], 'root.pipeline.processors.0');
      assert.equal(byName.get('out')!.attributes['svc.component.kind'], 'output');
      assert.equal(byName.get('out')!.attributes['svc.component.label'], 'out');
      // The root ends when the message is acked: after its write.
      assert.ok(root.end_ms! >= byName.get('out')!.end_ms!, 'root ends at the ack, after the write');
    }
    // test_throw failed on the batch of "3", "4", "5": those three carry the error.
    const failed = all.filter((s) => s.name === 'thrower' && s.error);
    assert.equal(failed.length, 3);
    assert.ok(failed.every((s) => s.error === 'boom (test)'));
  });

  it('turns processor calls on worker threads into spans of the right messages (threads: 2)', async () => {
    const { roots, all, delivered } = await traced(`
input: { test_source: { name: tr2, count: 40, batch_size: 8 } }
pipeline:
  threads: 2
  processors:
    - test_drop: { on: ["3"] }
    - test_upper: {}
output: { test_sink: { name: tr2 } }
tracer: { test_memory: {} }
`);
    assert.equal(delivered.length, 39);
    assert.equal(roots.length, 40);
    for (const root of roots) {
      const kids = childrenOf(all, root);
      const names = kids.map((k) => k.name).sort();
      // "3" is dropped by test_drop: it has no test_upper span and no write span.
      const dropped = kids.length === 1;
      assert.deepEqual(names, dropped ? ['test_drop'] : ['test_drop', 'test_sink', 'test_upper']);
      for (const k of kids.filter((k) => k.name.startsWith('test_') && k.attributes['svc.component.kind'] === 'processor')) {
        assert.ok(k.start_ms >= root.start_ms - 1 && k.end_ms! >= k.start_ms, 'worker times are on the same clock');
        assert.ok(k.end_ms! <= root.end_ms! + 1);
      }
    }
    assert.equal(roots.filter((r) => childrenOf(all, r).length === 1).length, 1, 'one message was dropped');
  });

  it('continues a remote parent that the input extracted', async () => {
    const { roots } = await traced(`
input: { test_source: { name: tr3, count: 2, traceparent: "00-${TRACE}-${PARENT}-01" } }
pipeline: { threads: 1 }
output: { test_sink: { name: tr3 } }
tracer: { test_memory: {} }
`);
    assert.equal(roots.length, 2);
    for (const r of roots) {
      assert.equal(r.traceId, TRACE);
      assert.equal(r.parentId, PARENT);
    }
  });

  it('follows a remote parent that was not sampled: no spans', async () => {
    const before = seen.spans.length;
    const s = streamOf(`
input: { test_source: { name: tr4, count: 3, traceparent: "00-${TRACE}-${PARENT}-00" } }
pipeline: { threads: 1 }
output: { test_sink: { name: tr4 } }
tracer: { test_memory: {} }
`);
    await s.run();
    assert.equal(seen.spans.length, before);
  });

  it('samples roots: unsampled messages get no spans at all', async () => {
    const { roots, all } = await traced(`
input: { test_source: { name: tr5, count: 30, batch_size: 10 } }
pipeline: { threads: 2, processors: [ { test_upper: {} } ] }
output: { test_sink: { name: tr5 } }
tracer: { test_memory: { every: 3 } }
`);
    assert.equal(roots.length, 10);
    assert.equal(all.length, 30, 'each sampled message: root, processor, write');
  });

  it('a tracer that decides ahead (skipRoots) samples the same messages, and never skips one with a parent', async () => {
    const { roots, all, delivered } = await traced(`
input: { test_source: { name: tr7, count: 30, batch_size: 10 } }
pipeline: { threads: 1, processors: [ { test_upper: {} } ] }
output: { test_sink: { name: tr7 } }
tracer: { test_memory: { every: 3, skip_ahead: true } }
`);
    assert.equal(delivered.length, 30);
    assert.equal(roots.length, 10);
    assert.equal(all.length, 30, 'each sampled message: root, processor, write');
    // Messages whose remote parent was sampled are traced whatever the head sampler skips.
    const parented = await traced(`
input: { test_source: { name: tr8, count: 12, batch_size: 4, traceparent: "00-${TRACE}-${PARENT}-01" } }
pipeline: { threads: 1 }
output: { test_sink: { name: tr8 } }
tracer: { test_memory: { every: 1000, offset: 1, skip_ahead: true } }
`);
    assert.equal(parented.roots.length, 12);
  });

  it('with tracer none, adds nothing to the messages', async () => {
    const s = streamOf(`
input: { test_source: { name: tr6, count: 3 } }
pipeline: { threads: 1 }
output: { test_sink: { name: tr6 } }
`);
    await s.run();
    assert.equal(s.observability.tracer.enabled, false);
  });
});
