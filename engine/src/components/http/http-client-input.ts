/**
 * The `http_client` input: polls `url` for messages (the response body is one message, or one
 * per part of a multipart response), interpolating the previous response into `url`, `headers`
 * and `payload` for pagination. With `stream.enabled` the response body is read as a
 * continuous stream of lines (a message each), reconnecting at its end with `stream.reconnect`.
 * Empty bodies are skipped with `drop_empty_bodies`. Failed requests follow the shared retry
 * rules; after them the read fails and the runtime tries again with back-off.
 */
import { createInterface, type Interface } from 'node:readline';
import {
  END_OF_INPUT,
  Message,
  NotConnectedError,
  compileInterpolation,
  f,
  registerInput,
  type Batch,
  type ComponentContext,
  type EndOfInput,
  type Infer,
  type Input,
  type Interpolation,
  type Transaction,
} from '@svc/engine';
import { clientFields } from './client-spec.js';
import { loadUndici } from './lazy-deps.js';
import { HttpClient, type StreamResponse } from './http-client.js';
import { MetadataFilter } from './metadata-filter.js';
import { responseBatch } from './response-batch.js';

export const httpClientInputSpec = f.object({
  ...clientFields('GET'),
  payload: f.string().interpolated().default('').describe('A body to send with each request; may interpolate the previous response.'),
  drop_empty_bodies: f.bool().default(true).advanced().describe('Whether responses with an empty body are skipped.'),
  stream: f
    .object({
      enabled: f.bool().default(false).describe('Whether the response body is consumed as a continuous stream of lines, a message each.'),
      reconnect: f.bool().default(true).describe('Whether to request again when the stream ends (else the input ends).'),
      max_buffer: f.int().default(1_000_000).advanced().describe('The longest line accepted, in bytes.'),
    })
    .describe('Consume the response body as a line-by-line stream.'),
  auto_replay_nacks: f.bool().default(true).describe('Whether a rejected batch is replayed (true) or dropped (false).'),
});

export type HttpClientInputConfig = Infer<typeof httpClientInputSpec>;

const NOOP_ACK = (): void => {};

export class HttpClientInput implements Input {
  readonly client: HttpClient;
  private readonly extract: MetadataFilter;
  private readonly payload: Interpolation | undefined;
  /** The previous response, interpolated into the next request (pagination). */
  private prev: Batch | undefined;
  private stream: { res: StreamResponse; lines: AsyncIterator<string>; rl: Interface } | undefined;
  private ended = false;
  private closed = false;

  constructor(
    private readonly conf: HttpClientInputConfig,
    ctx: ComponentContext,
  ) {
    // A stream has no overall deadline (only for its headers): it is meant to stay open.
    this.client = new HttpClient(conf, ctx, conf.stream.enabled ? { timeoutMs: 0 } : {});
    this.extract = new MetadataFilter(conf.extract_headers);
    this.payload = conf.payload ? compileInterpolation(conf.payload) : undefined;
  }

  private body(): { body?: Buffer } {
    if (!this.payload) return {};
    const ref = this.prev && this.prev.length ? this.prev : [new Message()];
    return { body: this.payload.bytes(ref[0]!, { batch: ref, index: 0 }) };
  }

  async connect(): Promise<void> {
    if (this.conf.stream.enabled) await this.openStream();
  }

  private async openStream(): Promise<void> {
    if (this.stream) return;
    const res = await this.client.open(this.prev, this.body());
    // As Benthos: the stream's response headers are the first "previous message".
    const first = new Message();
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) first.setMeta(k, Array.isArray(v) ? (v[0] ?? '') : v);
    this.prev = [first];
    const rl = createInterface({ input: res.body, crlfDelay: Infinity });
    this.stream = { res, rl, lines: rl[Symbol.asyncIterator]() };
  }

  async read(): Promise<Transaction | EndOfInput> {
    for (;;) {
      if (this.closed || this.ended) return END_OF_INPUT;
      const tx = this.conf.stream.enabled ? await this.readStreamed() : await this.readPolled();
      if (tx) return tx;
    }
  }

  private async readPolled(): Promise<Transaction | undefined> {
    // A poll starts a new trace: the runtime opens the root span of each message it reads.
    const res = await this.client.send(this.prev, this.body());
    const batch = responseBatch(res, this.extract);
    if (batch.length === 0) return undefined;
    if (batch.length === 1 && batch[0]!.byteLength === 0 && this.conf.drop_empty_bodies) return undefined;
    this.prev = batch;
    return { batch: batch.map((m) => m.copy()), ack: NOOP_ACK };
  }

  private async readStreamed(): Promise<Transaction | undefined> {
    if (!this.stream) {
      try {
        await this.openStream();
      } catch (err) {
        throw new NotConnectedError(`http_client stream: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    }
    const s = this.stream!;
    let next: IteratorResult<string>;
    try {
      next = await s.lines.next();
    } catch (err) {
      this.dropStream();
      throw new NotConnectedError(`http_client stream broke: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    if (next.done) {
      this.dropStream();
      if (!this.conf.stream.reconnect) this.ended = true;
      return undefined;
    }
    const line = next.value;
    if (Buffer.byteLength(line) > this.conf.stream.max_buffer) {
      this.dropStream();
      throw new NotConnectedError(`http_client stream: a line is longer than stream.max_buffer (${this.conf.stream.max_buffer} bytes)`);
    }
    if (line === '' && this.conf.drop_empty_bodies) return undefined;
    const m = new Message(line);
    this.prev = [m.copy()];
    return { batch: [m], ack: NOOP_ACK };
  }

  private dropStream(): void {
    const s = this.stream;
    this.stream = undefined;
    s?.rl.close();
    s?.res.body.destroy();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.dropStream();
    await this.client.close();
  }
}

registerInput('http_client', {
  summary: 'Polls an HTTP server for messages, or consumes a streamed response line by line.',
  description: [
    'Each read requests `url` with `verb`, `headers` and `payload`; the response body is one message (a',
    'multipart response: one message per part) with `http_status_code` and the `extract_headers` metadata.',
    'The previous response can be interpolated into `url`, `headers` and `payload` for pagination.',
    'Empty bodies are skipped with `drop_empty_bodies`. Failed requests follow the retry rules; then the',
    'read fails and is tried again with back-off. Rate limit the polling with `rate_limit`.',
    '',
    'With `stream.enabled` the body is read as a stream of lines, each a message; at its end the input',
    'requests again (`stream.reconnect`) or ends.',
  ].join('\n'),
  config: httpClientInputSpec,
  examples: [
    `input:
  http_client:
    url: 'https://api.example.com/items?page=\${! meta("next_page") | "1" }'
    verb: GET
    extract_headers: { include_prefixes: [ next_ ] }
    rate_limit: polls
rate_limit_resources:
  - label: polls
    local: { count: 1, interval: 1s }`,
    `input:
  http_client:
    url: http://localhost:8080/events
    stream:
      enabled: true
      reconnect: true`,
  ],
  factory: async (conf, ctx) => {
    await loadUndici();
    return new HttpClientInput(conf, ctx);
  },
});
