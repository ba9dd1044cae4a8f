/**
 * The `http_client` output: sends each message as the body of a request to `url` (a batch:
 * one request per message, started in batch order, or one multipart request with
 * `batch_as_multipart`), with the shared client's authentication and retry rules. At most
 * `max_in_flight` requests are under way for the whole output, counting those of one batch.
 * A write resolves once every request succeeded; after the retries it rejects. When some
 * messages of a batch were delivered it rejects with a BatchError naming the others, so the
 * runtime resends those alone (as Benthos does); otherwise the batch is nacked and replayed
 * by its input, never lost. With `propagate_response` the response becomes the synchronous
 * response of the input that received the message (an http_server answers with it).
 */
import {
  BatchError,
  batchPolicySpec,
  compileInterpolation,
  f,
  maxInFlightField,
  registerOutput,
  storeResult,
  type Batch,
  type ComponentContext,
  type Infer,
  type Interpolation,
  type Message,
  type Output,
} from '@svc/engine';
import { Semaphore } from '@svc/engine/kit';
import { clientFields } from './client-spec.js';
import { loadUndici } from './lazy-deps.js';
import { HttpClient, type RequestBody } from './http-client.js';
import { MetadataFilter } from './metadata-filter.js';
import { batchMultipartBody, buildMultipart, partContentType, type Part } from './multipart.js';
import { responseBatch } from './response-batch.js';
import { responseReply } from './sync-response.js';

const multipartPartSpec = f.object({
  content_type: f.string().interpolated().default('').describe('The Content-Type of the part.'),
  content_disposition: f.string().interpolated().default('').describe('The Content-Disposition of the part.'),
  body: f.string().interpolated().default('').describe('The body of the part.'),
});

export const httpClientOutputSpec = f.object({
  ...clientFields('POST'),
  batch_as_multipart: f.bool().default(false).describe('Whether a batch is sent as one multipart request (RFC 1341) instead of one request per message.'),
  propagate_response: f
    .bool()
    .default(false)
    .describe('Whether the response becomes the synchronous response of the input the message came from (`extract_headers` applies only then).'),
  max_in_flight: maxInFlightField(64, 'The most requests in flight at once, for the whole output (the requests of one batch count).'),
  batching: batchPolicySpec,
  multipart: f
    .array(multipartPartSpec)
    .default([])
    .advanced()
    .describe('When not empty, the request body is a multipart body of these parts (interpolated against the batch) instead of the message.'),
});

export type HttpClientOutputConfig = Infer<typeof httpClientOutputSpec>;

interface PartTemplate {
  contentType: Interpolation;
  disposition: Interpolation;
  body: Interpolation;
}

export class HttpClientOutput implements Output {
  readonly client: HttpClient;
  private readonly extract: MetadataFilter;
  private readonly partType: Interpolation | undefined;
  private readonly parts: PartTemplate[];
  /** `max_in_flight` bounds requests, not writes: a batch of 1,000 is 1,000 requests. */
  private readonly requests: Semaphore;

  constructor(
    private readonly conf: HttpClientOutputConfig,
    ctx: ComponentContext,
  ) {
    this.client = new HttpClient(conf, ctx);
    this.extract = new MetadataFilter(conf.extract_headers);
    this.requests = new Semaphore(conf.max_in_flight);
    this.partType = partContentType(conf.headers);
    this.parts = conf.multipart.map((p) => ({
      contentType: compileInterpolation(p.content_type),
      disposition: compileInterpolation(p.content_disposition),
      body: compileInterpolation(p.body),
    }));
  }

  async write(batch: Batch): Promise<void> {
    if (batch.length === 0) return;
    if (this.parts.length > 0) return this.request(batch, this.templateBody(batch));
    if (batch.length === 1) return this.request(batch, { body: batch[0]!.content });
    if (this.conf.batch_as_multipart) return this.request(batch, batchMultipartBody(batch, this.partType, 'mixed'));
    return this.sendEach(batch);
  }

  /**
   * One request per message, started in batch order as request slots free up. After a failure
   * no later message of the batch is started (it would overtake the failed one); the failed
   * message and the ones not started are named in a BatchError, so only they are resent.
   */
  private async sendEach(batch: Batch): Promise<void> {
    let failed: BatchError | undefined;
    let firstError: Error | undefined;
    const fail = (i: number, err: unknown) => {
      const e = err instanceof Error ? err : new Error(String(err));
      firstError ??= e;
      (failed ??= new BatchError(batch.length, e)).failed(i, e);
    };
    const running: Promise<void>[] = [];
    for (let i = 0; i < batch.length; i++) {
      const wait = this.requests.acquire();
      if (wait) await wait;
      if (firstError !== undefined) {
        this.requests.release();
        for (let j = i; j < batch.length; j++) failed!.failed(j, new Error(`not sent: an earlier message of its batch failed (${firstError.message})`));
        break;
      }
      const m: Message = batch[i]!;
      running.push(
        this.sendOne([m], { body: m.content }).then(
          () => this.requests.release(),
          (err: unknown) => {
            this.requests.release();
            fail(i, err);
          },
        ),
      );
    }
    await Promise.all(running);
    if (failed) throw failed;
  }

  /** One request in a request slot. */
  private async request(batch: Batch, body: RequestBody): Promise<void> {
    const wait = this.requests.acquire();
    if (wait) await wait;
    try {
      await this.sendOne(batch, body);
    } finally {
      this.requests.release();
    }
  }

  private async sendOne(batch: Batch, body: RequestBody): Promise<void> {
    // The request continues the trace of its (first) message.
    const res = await this.client.send(batch, { ...body, trace: batch[0] });
    if (!this.conf.propagate_response) return;
    const responses = responseBatch(res, this.extract);
    for (let i = 0; i < batch.length && i < responses.length; i++) storeResult(batch[i]!, responseReply(responses[i]!));
  }

  private templateBody(batch: Batch): RequestBody {
    const ctx = { batch, index: 0 };
    const m = batch[0]!;
    const parts: Part[] = this.parts.map((p) => {
      const headers: Record<string, string> = {};
      const type = p.contentType.value(m, ctx);
      const disposition = p.disposition.value(m, ctx);
      if (type) headers['content-type'] = type;
      if (disposition) headers['content-disposition'] = disposition;
      return { headers, body: p.body.bytes(m, ctx) };
    });
    const mp = buildMultipart(parts, 'form-data');
    return { body: mp.body, contentType: mp.contentType };
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

registerOutput('http_client', {
  summary: 'Sends messages to an HTTP server, with retries, authentication and synchronous responses.',
  description: [
    'Each message is the body of a request to `url` with `verb` (`url` and `headers` may interpolate it;',
    '`metadata` selects metadata sent as headers). A batch is sent as one request per message, or as one',
    'multipart request with `batch_as_multipart`. Connections are kept alive, a pool per origin.',
    '`max_in_flight` bounds the requests under way for the whole output; the requests of a batch start in',
    'batch order (strictly one after the other with `max_in_flight: 1`).',
    '',
    "Retries follow Benthos' rules: a status in `backoff_on` retries with waits doubling from",
    '`retry_period` up to `max_retry_backoff`; a status in `drop_on` fails at once; 2xx and `successful_on`',
    'succeed; anything else (and a connection failure or `timeout`) retries after `retry_period`; after',
    '`retries` retries the message fails: never lost. In a batch sent as one request per message, the',
    'messages after a failed one are not started; the failed message and those are resent alone (the',
    'delivered ones never twice) until delivered. A batch of which nothing was delivered is nacked (its',
    'input replays it).',
    '',
    'With `propagate_response` the response (with `http_status_code` and the `extract_headers` metadata)',
    'becomes the synchronous response of the input the message came from.',
  ].join('\n'),
  config: httpClientOutputSpec,
  examples: [
    `output:
  http_client:
    url: http://localhost:8080/events/\${! meta("kind") }
    verb: POST
    headers:
      Content-Type: application/json
    max_in_flight: 64
    retries: 5
    backoff_on: [ 429, 503 ]`,
    `# A proxy: answer each request with the upstream's response.
input:
  http_server: { path: /api }
output:
  http_client:
    url: http://upstream:9000/api
    propagate_response: true
    extract_headers: { include_prefixes: [ content- ] }`,
  ],
  factory: async (conf, ctx) => {
    await loadUndici();
    return new HttpClientOutput(conf, ctx);
  },
});
