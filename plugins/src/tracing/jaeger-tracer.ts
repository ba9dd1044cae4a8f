/**
 * The `tracer_a` (alias `jaeger`) tracer, through jaeger-client: spans go to a Jaeger agent over
 * UDP (binary Thrift, `agent_address`) or to a collector over HTTP (`collector_url`, which wins).
 * Head sampling (`const`, `probabilistic`, `ratelimiting`) is decided before a span exists
 * (`sampler.ts`); `remote` asks the agent's sampling endpoint through jaeger-client.
 * jaeger-client loads when the tracer is built, so an engine that does not trace never loads it.
 */
import {
  ErrorCode,
  SvcError,
  epochMs,
  f,
  formatUberTraceId,
  isSpan,
  parseDuration,
  registerTracer,
  registry,
  scrubSecrets,
  urlCredentials,
  type ComponentContext,
  type Infer,
  type Span,
  type SpanOptions,
  type TraceContext,
  type Tracer,
} from '@svc/engine';
import { ThrottledLog } from '@svc/engine/kit';
import type { JaegerSpan, Tracer as JTracer } from 'jaeger-client';
import { ALWAYS, NEVER, rateLimitingSampler, ratioSampler, type HeadSampler } from './sampler.js';

export const jaegerSpec = f.object({
  agent_address: f.string().default('').describe('The host:port of a Jaeger agent (UDP, binary Thrift). Empty, with no collector_url: localhost:6832.'),
  collector_url: f.string().url().default('').describe('The URL of a Jaeger collector (e.g. http://localhost:14268/api/traces); overrides agent_address.'),
  sampler_type: f
    .enum(['const', 'probabilistic', 'ratelimiting', 'remote'] as const)
    .default('const')
    .describe(
      'const: 1 or more samples every trace, 0 none, between is a fraction; probabilistic: that fraction; ratelimiting: traces a second; remote: as the agent says.',
    ),
  sampler_param: f.float().default(1).describe('The parameter of the sampler.'),
  sampler_manager_address: f
    .string()
    .default('')
    .advanced()
    .describe('With sampler_type remote: the host:port of the sampling endpoint (default localhost:5778).'),
  tags: f.map(f.string()).default({}).describe('Tags added to every span (as process tags).'),
  flush_interval: f.duration().default('').describe('How often buffered spans are sent; empty: every second.'),
  max_packet_size: f
    .int()
    .default(65000)
    .advanced()
    .describe('The largest UDP packet sent to the agent, in bytes: spans are batched up to it, never over.')
    .validate((n) => (n >= 1024 && n <= 65507 ? undefined : 'max_packet_size must be between 1024 and 65507')),
  service_name: f.string().default('svc').advanced().describe('The service name spans are reported under.'),
});
export type JaegerConfig = Infer<typeof jaegerSpec>;

function splitHostPort(address: string, defaultPort: number): { host: string; port: number } {
  const i = address.lastIndexOf(':');
  if (i < 0) return { host: address || 'localhost', port: defaultPort };
  const port = Number(address.slice(i + 1));
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new SvcError(ErrorCode.ConfigLint, `"${address}" is not host:port (e.g. localhost:6832)`);
  }
  return { host: address.slice(0, i).replace(/^\[(.*)\]$/, '$1') || 'localhost', port };
}

/** The engine's head sampler for a Jaeger sampler type (undefined: jaeger-client decides). */
export function jaegerHeadSampler(type: JaegerConfig['sampler_type'], param: number): HeadSampler | undefined {
  switch (type) {
    case 'const':
      // As Jaeger's probabilistic sampler param reads: 1 or more samples every trace, 0 none, in between is a fraction.
      return param >= 1 ? ALWAYS : param <= 0 ? NEVER : ratioSampler(param);
    case 'probabilistic':
      return ratioSampler(param);
    case 'ratelimiting':
      return rateLimitingSampler(param);
    case 'remote':
      return undefined;
  }
}

class JaegerSpanAdapter implements Span {
  constructor(readonly span: JaegerSpan) {}
  context(): TraceContext {
    const c = this.span.context();
    return { traceId: c.traceIdStr.padStart(32, '0'), spanId: c.spanIdStr.padStart(16, '0'), sampled: c.isSampled() };
  }
  setAttribute(key: string, value: string | number | boolean): void {
    this.span.setTag(key, value);
  }
  recordError(message: string): void {
    this.span.setTag('error', true);
    this.span.log({ event: 'error', message }, epochMs());
  }
  end(endTimeMs?: number): void {
    this.span.finish(endTimeMs ?? epochMs());
  }
}

export class JaegerTracer implements Tracer {
  readonly enabled = true;
  private closed = false;

  constructor(
    private readonly tracer: JTracer,
    private readonly sampler: HeadSampler | undefined,
    private readonly textMapFormat: string,
    /** Resolves once the sender has no request in flight. */
    private readonly drained?: () => Promise<void>,
  ) {}

  skipRoots(n: number): number {
    return this.sampler === undefined ? 0 : this.sampler.skip(n);
  }

  startSpan(name: string, options: SpanOptions = {}): Span | undefined {
    const parent = options.parent;
    let childOf: JaegerSpan | ReturnType<JTracer['extract']> | undefined;
    if (parent === undefined) {
      if (this.sampler !== undefined && !this.sampler.sample()) return undefined;
    } else if (isSpan(parent)) {
      if (!(parent instanceof JaegerSpanAdapter)) return undefined;
      childOf = parent.span;
    } else {
      // A remote parent decides for its trace.
      if (!parent.sampled) return undefined;
      childOf = this.tracer.extract(this.textMapFormat, { 'uber-trace-id': formatUberTraceId(parent) });
    }
    const span = this.tracer.startSpan(name, {
      childOf: childOf ?? undefined,
      tags: options.attributes,
      startTime: options.startTimeMs ?? epochMs(),
    });
    if (!span.context().isSampled()) return undefined; // `remote` said no
    return new JaegerSpanAdapter(span);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    // jaeger-client flushes on close; a dead collector must not hold shutdown.
    return new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 5_000);
      t.unref();
      this.tracer.close(() => {
        void (this.drained?.() ?? Promise.resolve()).then(() => {
          clearTimeout(t);
          resolve();
        });
      });
    });
  }
}

function interop<T>(mod: { default: T }): T {
  const d = mod.default as T & { default?: T; __esModule?: boolean };
  return d.__esModule && d.default ? d.default : d;
}

/** The factory of `tracer_a` / `jaeger`. jaeger-client loads on first use. */
export async function createJaegerTracer(conf: JaegerConfig, ctx: ComponentContext): Promise<JaegerTracer> {
  const jaeger = (await import('jaeger-client')).default;
  // Babel-built CommonJS: the class is the `default` of module.exports.
  const UDPSender = interop(await import('jaeger-client/dist/src/reporters/udp_sender.js'));
  const HTTPSender = interop(await import('jaeger-client/dist/src/reporters/http_sender.js'));
  const failures = new ThrottledLog(ctx.logger);
  const logger = {
    info: (msg: string) => ctx.logger.debug(msg),
    error: (msg: string) => failures.warn(scrubSecrets(`Tracer: ${msg}`, [], [conf.collector_url])),
  };

  /**
   * jaeger-client's UDP sender appends a span that overflows the packet only after the flush's
   * callback, by which time a burst has refilled the buffer: the next packet exceeds the limit
   * and the agent drops all of it. This one flushes first and then appends, so no packet is
   * ever larger than max_packet_size.
   */
  class BoundedUDPSender extends UDPSender {
    override append(span: unknown, callback?: (numSpans: number, err?: string) => void): void {
      const { err, length } = this._calcSpanSize(span);
      if (err) return callback?.(1, `error converting span to Thrift: ${String(err)}`);
      if (length > this._maxSpanBytes) return callback?.(1, `span size ${length} is larger than the packet limit ${this._maxSpanBytes}`);
      if (this._totalSpanBytes + length > this._maxSpanBytes) this.flush(callback);
      this._batch.spans.push(span);
      this._totalSpanBytes += length;
      if (this._totalSpanBytes >= this._maxSpanBytes) this.flush(callback);
      else callback?.(0);
    }
  }

  /**
   * jaeger-client's HTTP sender destroys its agent as soon as the reporter closes, cutting the
   * requests still in flight (their spans are lost). This one closes once they have finished.
   */
  class DrainingHTTPSender extends HTTPSender {
    private pending = 0;
    private closeWhenIdle = false;
    private idleWaiters: Array<() => void> = [];
    override flush(callback?: (numSpans: number, err?: string) => void): void {
      this.pending++;
      super.flush((n, err) => {
        callback?.(n, err);
        if (--this.pending === 0) {
          if (this.closeWhenIdle) super.close();
          for (const w of this.idleWaiters.splice(0)) w();
        }
      });
    }
    override close(): void {
      if (this.pending === 0) super.close();
      else this.closeWhenIdle = true;
    }
    authorize(authorization: string): void {
      this._httpOptions.headers['Authorization'] = authorization;
    }
    idle(): Promise<void> {
      return this.pending === 0 ? Promise.resolve() : new Promise((r) => this.idleWaiters.push(r));
    }
  }

  let sender;
  let drained: (() => Promise<void>) | undefined;
  if (conf.collector_url) {
    // jaeger-client reads the endpoint with Node's `url.parse` and ignores its userinfo: the
    // credentials go as a basic Authorization header (as Go's client sends them) and the URL it
    // sees has no password to print.
    const { url, authorization } = urlCredentials(conf.collector_url);
    const http = new DrainingHTTPSender({ endpoint: url, logger, timeoutMs: 5_000 });
    if (authorization) http.authorize(authorization);
    drained = () => http.idle();
    sender = http;
  } else {
    const { host, port } = splitHostPort(conf.agent_address || 'localhost:6832', 6832);
    sender = new BoundedUDPSender({ host, port, maxPacketSize: conf.max_packet_size, logger });
  }
  const flushMs = parseDuration(conf.flush_interval);
  const reporter = new jaeger.RemoteReporter(sender, { bufferFlushInterval: flushMs > 0 ? flushMs : 1000, logger });
  const head = jaegerHeadSampler(conf.sampler_type, conf.sampler_param);
  let sampler: unknown;
  if (head === undefined) {
    const { host, port } = splitHostPort(conf.sampler_manager_address || 'localhost:5778', 5778);
    sampler = new jaeger.RemoteSampler(conf.service_name, {
      sampler: new jaeger.ProbabilisticSampler(Math.min(1, Math.max(0, conf.sampler_param))),
      host,
      port,
      logger,
    });
  } else {
    // The engine sampled already: every span it starts is recorded, tagged with the real sampler.
    sampler = {
      name: () => 'HeadSampler',
      toString: () => `HeadSampler(${conf.sampler_type}, ${conf.sampler_param})`,
      isSampled: (_op: string, tags: Record<string, unknown>) => {
        tags['sampler.type'] = conf.sampler_type;
        tags['sampler.param'] = conf.sampler_param;
        return true;
      },
      equal: () => false,
      close: (cb?: () => void) => cb?.(),
    };
  }
  const tracer = new jaeger.Tracer(conf.service_name, reporter, sampler, { tags: conf.tags, logger, traceId128bit: true });
  return new JaegerTracer(tracer, head, jaeger.opentracing.FORMAT_TEXT_MAP, drained);
}

registerTracer('tracer_a', {
  summary: 'Jaeger tracing: spans to an agent over UDP or to a collector over HTTP.',
  description:
    'A root span per message at ingestion (its parent taken from `traceparent` / `uber-trace-id` when an input extracted one), ' +
    'a child span per processor and per output write; the root span ends when the message is acknowledged.',
  config: jaegerSpec,
  examples: ['tracer:\n  jaeger:\n    agent_address: localhost:6832\n    sampler_type: const\n    sampler_param: 1\n'],
  factory: createJaegerTracer,
});
registry().alias('tracer', 'jaeger', 'tracer_a');
