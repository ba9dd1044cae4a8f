/**
 * The OTLP span queue against a collector that never answers: the stream's side (onEnd) never
 * waits, the queue holds at most its bound, the rest is dropped and counted; once the collector
 * answers, what was queued goes out. And end to end: an engine run tracing every message to a
 * collector that accepts connections but never answers finishes, and its metrics file counts the
 * dropped spans.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Counter } from '@svc/engine';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { EngineProcess } from '@svc/engine/testing';
import { BoundedSpanProcessor } from './bounded-span-processor.js';

function counter(): Counter & { n: number } {
  const c = { n: 0, inc: (by = 1) => void (c.n += by) };
  return c as unknown as Counter & { n: number };
}

/** An exporter whose exports end only when the test says (a collector that hangs, then recovers). */
function hangingExporter() {
  const batches: number[] = [];
  const waiting: Array<() => void> = [];
  const exporter: SpanExporter = {
    export(spans, done) {
      batches.push(spans.length);
      waiting.push(() => done({ code: 0 }));
    },
    shutdown: () => Promise.resolve(),
  };
  return { exporter, batches, release: () => waiting.splice(0).forEach((w) => w()) };
}

const span = {} as ReadableSpan;
const dir = mkdtempSync(join(tmpdir(), 'svc-spans-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('bounded span queue', { timeout: 90_000 }, () => {
  it('a collector that hangs: spans beyond the queue are dropped and counted; queued ones go out once it answers', async () => {
    const h = hangingExporter();
    const dropped = counter();
    const p = new BoundedSpanProcessor(h.exporter, dropped, { maxQueue: 100, maxBatch: 10, delayMs: 60_000 });
    for (let i = 0; i < 1000; i++) p.onEnd(span);
    // 10 went out in the first export (still hanging), 100 wait, the rest were dropped.
    assert.deepEqual(h.batches, [10]);
    assert.equal(dropped.n, 1000 - 10 - 100);
    const flushed = p.forceFlush();
    for (let i = 0; i < 20 && h.batches.length < 11; i++) {
      h.release();
      await new Promise((r) => setImmediate(r));
    }
    h.release();
    await flushed;
    assert.equal(
      h.batches.reduce((a, b) => a + b, 0),
      110,
      'everything queued was exported',
    );
    assert.equal(dropped.n, 890);
  });

  it('engine run: every message traced to a collector that never answers finishes; tracer_spans_dropped counts', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const collector: Server = createServer(() => {}); // accepts, reads, never answers
    collector.on('connection', (s) => sockets.add(s));
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    const metricsFile = join(dir, 'metrics.txt');
    const engine = new EngineProcess(`http: { enabled: false }
logger: { level: WARN }
input:
  generate: { mapping: 'root = "x"', interval: '', count: 20000, batch_size: 100 }
output:
  drop: {}
metrics:
  prometheus: { file_path: ${metricsFile} }
tracer:
  open_telemetry_collector:
    http: [ { address: "127.0.0.1:${(collector.address() as AddressInfo).port}" } ]
`);
    try {
      // A finite input: the run ends by itself, within the shutdown's bounded flush.
      assert.equal(await engine.exited, 0, engine.output());
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => collector.close(r));
    }
    const text = readFileSync(metricsFile, 'utf8');
    const m = /^svc_tracer_spans_dropped(?:\{[^}]*\})? (\d+)/m.exec(text);
    assert.ok(m, text.slice(0, 2000));
    assert.ok(Number(m[1]) > 0, `spans dropped: ${m[1]}`);
  });
});
