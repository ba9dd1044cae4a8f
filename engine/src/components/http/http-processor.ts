/**
 * The `http` processor, as Benthos v4.51's: each message is sent as a request with the shared
 * client (`url`, `verb` and `headers` interpolated per message, its authentication and retry
 * rules) and its content becomes the response body, with `http_status_code` and the
 * `extract_headers` metadata. A batch of several is one request per message (one after the
 * other, or all at once with `parallel`), or one multipart request with `batch_as_multipart`.
 * A failed request keeps the message as it was and flags it with Benthos' error text (and
 * `http_status_code` when a response came back).
 */
import { STATUS_CODES } from 'node:http';
import {
  f,
  redactUrl,
  registerProcessor,
  type Batch,
  type ComponentContext,
  type Infer,
  type Interpolation,
  type Logger,
  type Message,
  type Processor,
} from '@svc/engine';
import { clientFields } from './client-spec.js';
import { HttpClient, type RequestBody } from './http-client.js';
import { loadUndici } from './lazy-deps.js';
import { MetadataFilter } from './metadata-filter.js';
import { UnexpectedStatusError } from './errors.js';
import { batchMultipartBody, partContentType } from './multipart.js';
import { responseBatch } from './response-batch.js';

export const httpProcessorSpec = f.object({
  ...clientFields('POST'),
  batch_as_multipart: f
    .bool()
    .default(false)
    .describe('Whether a batch of several messages is sent as one multipart request instead of one request per message.'),
  parallel: f.bool().default(false).describe('Whether the requests of a batch (one per message) are sent all at once instead of one after the other.'),
});

export type HttpProcessorConfig = Infer<typeof httpProcessorSpec>;

/** The error text Benthos v4.51 flags a message with: the url and its `ErrUnexpectedHTTPRes` text for a status (the whole body, newlines removed). */
function failureText(err: unknown): string {
  if (err instanceof UnexpectedStatusError) {
    const reason = STATUS_CODES[err.status];
    const status = reason ? `${err.status} ${reason}` : String(err.status);
    return `${err.url}: HTTP request returned unexpected response code (${err.status}): ${status}, Error: ${err.body.toString('utf8').replaceAll('\n', '')}`;
  }
  return err instanceof Error ? err.message : String(err);
}

export class HttpProcessor implements Processor {
  readonly client: HttpClient;
  private readonly extract: MetadataFilter;
  private readonly partType: Interpolation | undefined;
  private readonly log: Logger;
  private readonly target: string;

  constructor(
    private readonly conf: HttpProcessorConfig,
    ctx: ComponentContext,
  ) {
    this.client = new HttpClient(conf, ctx);
    this.extract = new MetadataFilter(conf.extract_headers);
    this.partType = partContentType(conf.headers);
    this.log = ctx.logger;
    this.target = redactUrl(conf.url);
  }

  async process(batch: Batch): Promise<Batch[]> {
    if (batch.length === 0) return [];
    let out: Batch;
    if (batch.length === 1 || this.conf.batch_as_multipart) {
      const body: RequestBody = batch.length === 1 ? { body: batch[0]!.content } : batchMultipartBody(batch, this.partType, 'form-data');
      out = await this.exchange(batch, { ...body, trace: batch[0] });
    } else if (this.conf.parallel) {
      // One result per message, in batch order: a multipart response of several parts is a failure, as in Benthos.
      const results = await Promise.all(batch.map((m) => this.exchange([m], { body: m.content, trace: m })));
      out = results.map((r, i) => (r.length === 1 ? r[0]! : this.flag(batch[i]!, `unexpected response size: ${r.length}`)));
    } else {
      out = [];
      for (const m of batch) out.push(...(await this.exchange([m], { body: m.content, trace: m })));
    }
    return [out];
  }

  /**
   * One request for `batch`: the response messages, each a copy of the request message at its
   * index (or of the first) with the response body and metadata; on failure the messages as
   * they were, flagged.
   */
  private async exchange(batch: Batch, body: RequestBody): Promise<Batch> {
    try {
      const res = await this.client.send(batch, body);
      return responseBatch(res, this.extract).map((r, i) => {
        const m: Message = (batch[i] ?? batch[0]!).copy();
        m.content = r.content;
        for (const [k, v] of r.metaEntries()) m.setMeta(k, v);
        return m;
      });
    } catch (err) {
      const text = failureText(err);
      this.log.error(`HTTP request to '${this.target}' failed: ${text}`);
      return batch.map((orig) => {
        const m = orig.copy();
        if (err instanceof UnexpectedStatusError) m.setMeta('http_status_code', err.status);
        m.setError(text);
        return m;
      });
    }
  }

  private flag(orig: Message, text: string): Message {
    this.log.error(`HTTP parallel request to '${this.target}' failed: ${text}`);
    const m = orig.copy();
    m.setError(text);
    return m;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

registerProcessor('http', {
  summary: 'Sends each message to an HTTP server and replaces it with the response, as Benthos does.',
  description: [
    'Each message is the body of a request to `url` with `verb` (`url` and `headers` may interpolate it;',
    '`metadata` selects metadata sent as headers), with the authentication and retry rules of',
    '`http_client`. The message content becomes the response body and the message gets the metadata',
    '`http_status_code` and the response headers that `extract_headers` selects (its other metadata',
    'stays). A multipart response becomes one message per part.',
    '',
    'A batch of several messages is one request per message, one after the other (all at once with',
    '`parallel`), or one multipart request with `batch_as_multipart` (the response parts then replace the',
    'messages in order).',
    '',
    'A request that still fails after `retries` leaves the message as it was, flagged with the error',
    '(`error()` in a mapping; `catch` handles it) and with `http_status_code` when a response came back.',
  ].join('\n'),
  config: httpProcessorSpec,
  examples: [
    `# Enrich each document with what a service answers for it.
pipeline:
  processors:
    - branch:
        request_map: 'root = {"id": this.user_id}'
        processors:
          - http:
              url: http://localhost:8080/users/\${! json("id") }
              verb: GET
              retries: 2
        result_map: 'root.user = this'`,
    `pipeline:
  processors:
    - http:
        url: http://localhost:8080/score
        headers:
          Content-Type: application/json
        extract_headers: { include_prefixes: [ x-score- ] }
        parallel: true
    - catch:
        - log: { message: 'scoring failed: \${! error() }' }`,
  ],
  factory: async (conf, ctx) => {
    await loadUndici();
    return new HttpProcessor(conf, ctx);
  },
});
