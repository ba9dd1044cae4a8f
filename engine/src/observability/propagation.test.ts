import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileMapping } from '../interp/index.js';
import { Message } from '../message/message.js';
import {
  extractTraceHeaders,
  extractTracingMap,
  formatTraceparent,
  formatUberTraceId,
  injectTraceHeaders,
  injectTracingMap,
  parseTraceparent,
  parseUberTraceId,
} from './propagation.js';
import { PARENT_KEY, SPAN_KEY, traceContextOf, type Span, type TraceContext } from './tracer.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

function fakeSpan(ctx: TraceContext): Span {
  return { context: () => ctx, setAttribute() {}, recordError() {}, end() {} };
}

describe('propagation: W3C traceparent', () => {
  it('parses and formats', () => {
    assert.deepEqual(parseTraceparent(`00-${TRACE}-${SPAN}-01`), { traceId: TRACE, spanId: SPAN, sampled: true });
    assert.deepEqual(parseTraceparent(`00-${TRACE}-${SPAN}-00`, 'congo=t61rcWkgMzE'), {
      traceId: TRACE,
      spanId: SPAN,
      sampled: false,
      traceState: 'congo=t61rcWkgMzE',
    });
    assert.equal(parseTraceparent(` 00-${TRACE.toUpperCase()}-${SPAN}-03 `)?.sampled, true, 'case and other flag bits');
    assert.equal(formatTraceparent({ traceId: TRACE, spanId: SPAN, sampled: true }), `00-${TRACE}-${SPAN}-01`);
  });

  it('rejects what the spec calls invalid', () => {
    for (const bad of [
      '',
      `ff-${TRACE}-${SPAN}-01`,
      `00-${'0'.repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${'0'.repeat(16)}-01`,
      `00-${TRACE.slice(1)}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}-01-extra`,
      `00-${TRACE}-${SPAN}-zz`,
    ]) {
      assert.equal(parseTraceparent(bad), undefined, bad);
    }
    assert.ok(parseTraceparent(`01-${TRACE}-${SPAN}-01-future`), 'a later version may add fields');
  });
});

describe('propagation: uber-trace-id', () => {
  it('parses 64- and 128-bit ids, flags and URL encoding', () => {
    assert.deepEqual(parseUberTraceId(`${TRACE}:${SPAN}:0:1`), { traceId: TRACE, spanId: SPAN, sampled: true });
    assert.deepEqual(parseUberTraceId('abc:def:0:0'), { traceId: 'abc'.padStart(32, '0'), spanId: 'def'.padStart(16, '0'), sampled: false });
    assert.equal(parseUberTraceId('abc%3Adef%3A0%3A1')?.sampled, true);
    assert.equal(parseUberTraceId('abc:def:0:2')?.sampled, true, 'debug implies sampled');
    assert.equal(parseUberTraceId('abc:def:0'), undefined);
    assert.equal(parseUberTraceId('0:def:0:1'), undefined);
  });

  it('formats 64-bit trace ids short, 128-bit ones whole', () => {
    assert.equal(formatUberTraceId({ traceId: TRACE, spanId: SPAN, sampled: true }), `${TRACE}:${SPAN}:0:1`);
    assert.equal(formatUberTraceId({ traceId: '0'.repeat(16) + 'a'.repeat(16), spanId: SPAN, sampled: false }), `${'a'.repeat(16)}:${SPAN}:0:0`);
  });
});

describe('propagation: HTTP headers', () => {
  it('extracts from node headers, any-case records and fetch Headers; traceparent first', () => {
    const ctx = { traceId: TRACE, spanId: SPAN, sampled: true };
    assert.deepEqual(extractTraceHeaders({ traceparent: `00-${TRACE}-${SPAN}-01` }), ctx);
    assert.deepEqual(extractTraceHeaders({ 'Uber-Trace-Id': `${TRACE}:${SPAN}:0:1` }), ctx);
    assert.deepEqual(extractTraceHeaders(new Headers({ TraceParent: `00-${TRACE}-${SPAN}-01` })), ctx);
    assert.deepEqual(extractTraceHeaders({ traceparent: [`00-${TRACE}-${SPAN}-01`] }), ctx);
    const both = extractTraceHeaders({ traceparent: `00-${TRACE}-${SPAN}-01`, 'uber-trace-id': `abc:def:0:1` });
    assert.equal(both?.traceId, TRACE);
    assert.equal(extractTraceHeaders({ 'content-type': 'x' }), undefined);
  });

  it('injects a message’s span context in both formats, and nothing for an untraced message', () => {
    const m = new Message('x');
    assert.deepEqual(injectTraceHeaders(m, {}), {});
    assert.equal(m.hasCtx(), false, 'an untraced message gets no ctx');
    m.ctx.set(SPAN_KEY, fakeSpan({ traceId: TRACE, spanId: SPAN, sampled: true, traceState: 'a=b' }));
    assert.deepEqual(injectTraceHeaders(m, { accept: '*/*' }), {
      accept: '*/*',
      traceparent: `00-${TRACE}-${SPAN}-01`,
      tracestate: 'a=b',
      'uber-trace-id': `${TRACE}:${SPAN}:0:1`,
    });
    const round = extractTraceHeaders(injectTraceHeaders(m, {}));
    assert.deepEqual(round, { traceId: TRACE, spanId: SPAN, sampled: true, traceState: 'a=b' });
  });
});

describe('propagation: extract_tracing_map / inject_tracing_map (Kafka headers)', () => {
  it('extracts the parent from a mapping over metadata; the message continues that trace', () => {
    const m = new Message('payload', { traceparent: `00-${TRACE}-${SPAN}-01`, other: 'x' });
    const ctx = extractTracingMap(m, compileMapping('root = @'));
    assert.deepEqual(ctx, { traceId: TRACE, spanId: SPAN, sampled: true });
    assert.deepEqual(m.ctx.get(PARENT_KEY), ctx);
    assert.deepEqual(traceContextOf(m), ctx);
    const none = new Message('x', { a: 'b' });
    assert.equal(extractTracingMap(none, compileMapping('root = @')), undefined);
    const nested = new Message('x', { span: JSON.stringify({ 'uber-trace-id': `${TRACE}:${SPAN}:0:1` }) });
    assert.equal(extractTracingMap(nested, compileMapping('root = @span.parse_json()'))?.traceId, TRACE);
  });

  it('injects the text map with a mapping onto metadata, keeping the rest', () => {
    const m = new Message('payload', { keep: 'me' });
    m.ctx.set(SPAN_KEY, fakeSpan({ traceId: TRACE, spanId: SPAN, sampled: true }));
    injectTracingMap(m, compileMapping('meta = @.merge(this)'));
    assert.equal(m.getMeta('keep'), 'me');
    assert.equal(m.getMeta('traceparent'), `00-${TRACE}-${SPAN}-01`);
    assert.equal(m.getMeta('uber-trace-id'), `${TRACE}:${SPAN}:0:1`);
    assert.equal(m.text(), 'payload', 'the content is untouched');
    const untraced = new Message('p');
    injectTracingMap(untraced, compileMapping('meta = @.merge(this)'));
    assert.equal(untraced.hasMeta(), false);
  });

  it('passes a remote parent on when the message has no span of its own', () => {
    const m = new Message('p', { traceparent: `00-${TRACE}-${SPAN}-01` });
    extractTracingMap(m, compileMapping('root = @'));
    const out = new Message('p');
    out.shareCtxOf(m);
    injectTracingMap(out, compileMapping('meta span = this.traceparent'));
    assert.equal(out.getMeta('span'), `00-${TRACE}-${SPAN}-01`);
  });
});
