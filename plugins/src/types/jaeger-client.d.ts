/**
 * The parts of jaeger-client 3 the `tracer_a` tracer uses (the package ships no types, and
 * `@types/jaeger-client` would pull a second, older prom-client).
 */
declare module 'jaeger-client' {
  export interface JaegerSpanContext {
    readonly traceIdStr: string;
    readonly spanIdStr: string;
    isSampled(): boolean;
  }
  export interface JaegerSpan {
    context(): JaegerSpanContext;
    setTag(key: string, value: unknown): this;
    log(fields: Record<string, unknown>, timestamp?: number): this;
    finish(finishTime?: number): void;
  }
  export interface StartSpanOptions {
    childOf?: JaegerSpan | JaegerSpanContext;
    tags?: Record<string, unknown>;
    startTime?: number;
  }
  export interface JaegerLogger {
    info(msg: string): void;
    error(msg: string): void;
  }
  export interface Sender {
    setProcess(process: unknown): void;
    append(span: unknown, callback?: (numSpans: number, err?: string) => void): void;
    flush(callback?: (numSpans: number, err?: string) => void): void;
    close(): void;
  }
  export interface Reporter {
    report(span: unknown): void;
    flush(callback?: () => void): void;
    close(callback?: () => void): void;
    setProcess(serviceName: string, tags: unknown): void;
  }
  export interface LegacySampler {
    name(): string;
    isSampled(operation: string, tags: Record<string, unknown>): boolean;
    equal(other: unknown): boolean;
    close(callback?: () => void): void;
  }
  export class Tracer {
    constructor(serviceName: string, reporter?: Reporter, sampler?: unknown, options?: Record<string, unknown>);
    startSpan(name: string, options?: StartSpanOptions): JaegerSpan;
    extract(format: string, carrier: unknown): JaegerSpanContext | null;
    close(callback?: () => void): void;
  }
  export class RemoteReporter implements Reporter {
    constructor(sender: Sender, options?: { bufferFlushInterval?: number; logger?: JaegerLogger });
    report(span: unknown): void;
    flush(callback?: () => void): void;
    close(callback?: () => void): void;
    setProcess(serviceName: string, tags: unknown): void;
  }
  export class RemoteSampler {
    constructor(serviceName: string, options?: Record<string, unknown>);
  }
  export class ProbabilisticSampler {
    constructor(rate: number);
  }
  export const opentracing: { FORMAT_TEXT_MAP: string; FORMAT_HTTP_HEADERS: string };
  const jaeger: {
    Tracer: typeof Tracer;
    RemoteReporter: typeof RemoteReporter;
    RemoteSampler: typeof RemoteSampler;
    ProbabilisticSampler: typeof ProbabilisticSampler;
    opentracing: typeof opentracing;
  };
  export default jaeger;
}

declare module 'jaeger-client/dist/src/reporters/udp_sender.js' {
  import type { JaegerLogger, Sender } from 'jaeger-client';
  export default class UDPSender implements Sender {
    constructor(options?: { host?: string; port?: number; socketType?: string; maxPacketSize?: number; logger?: JaegerLogger });
    protected _maxSpanBytes: number;
    protected _totalSpanBytes: number;
    protected _batch: { spans: unknown[] };
    protected _calcSpanSize(span: unknown): { err?: unknown; length: number };
    setProcess(process: unknown): void;
    append(span: unknown, callback?: (numSpans: number, err?: string) => void): void;
    flush(callback?: (numSpans: number, err?: string) => void): void;
    close(): void;
  }
}

declare module 'jaeger-client/dist/src/reporters/http_sender.js' {
  import type { JaegerLogger, Sender } from 'jaeger-client';
  export default class HTTPSender implements Sender {
    constructor(options: { endpoint: string; username?: string; password?: string; timeoutMs?: number; maxSpanBatchSize?: number; logger?: JaegerLogger });
    /** The options of every POST (Node's `http.request`). */
    protected _httpOptions: { headers: Record<string, string> };
    setProcess(process: unknown): void;
    append(span: unknown, callback?: (numSpans: number, err?: string) => void): void;
    flush(callback?: (numSpans: number, err?: string) => void): void;
    close(): void;
  }
}
