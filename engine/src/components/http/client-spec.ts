/**
 * The fields the `http_client` input and output share (the http_client table of docs/spec/streams.md): where
 * and how to call, how to authenticate, and the retry rules of its Errors section.
 */
import { f } from '@svc/engine';
import { basicAuthSpec } from './basic-auth.js';
import { jwtSpec } from './jwt-auth.js';
import { metadataFilterSpec } from './metadata-filter.js';
import { oauthSpec } from './oauth1.js';
import { oauth2Spec } from './oauth2.js';
import { tlsSpec } from '../tls/tls-options.js';

export const DUMP_LEVELS = ['', 'TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const;

const statusList = (what: string, dflt: number[]) =>
  f
    .array(f.int().validate((c) => (c >= 100 && c <= 599 ? undefined : `${c} is not an HTTP status code (100-599)`)))
    .default(dflt)
    .describe(what);

/** The shared fields; `verb` defaults differ (GET for the input, POST for the output). */
export function clientFields(defaultVerb: string) {
  return {
    url: f
      .string()
      .interpolated()
      .url()
      .validate((u) => (u.trim() === '' ? 'url cannot be empty' : undefined))
      .describe('The URL to call; may interpolate the message (for the input: the previous one, for pagination).'),
    verb: f.string().default(defaultVerb).describe('The HTTP method.'),
    headers: f.map(f.string().interpolated()).default({}).describe('Headers of every request; values may be interpolations.'),
    metadata: metadataFilterSpec('sent as request headers'),
    dump_request_log_level: f
      .enum(DUMP_LEVELS)
      .default('')
      .advanced()
      .describe('When set, every request and response is logged in full at this level (credentials included: debugging only).'),
    oauth: oauthSpec,
    oauth2: oauth2Spec,
    basic_auth: basicAuthSpec,
    jwt: jwtSpec,
    tls: tlsSpec,
    extract_headers: metadataFilterSpec('copied from response headers (lower-cased) to metadata'),
    rate_limit: f.string().default('').describe('A rate limit resource to wait on before each request.'),
    timeout: f.duration().default('5s').describe('How long one request may take, from sending to the end of the response.'),
    retry_period: f.duration().default('1s').describe('The wait before a retry; doubled for each retry of a `backoff_on` status.'),
    max_retry_backoff: f.duration().default('300s').describe('The longest wait between retries.'),
    retries: f
      .int()
      .default(3)
      .validate((n) => (n >= 0 ? undefined : 'retries cannot be negative'))
      .describe('How many times a failed request is retried.'),
    backoff_on: statusList('Statuses that fail the attempt and retry with growing waits.', [429]),
    drop_on: statusList('Statuses that fail the attempt without a retry (the message is rejected, not lost).', []),
    successful_on: statusList('Statuses that count as success besides 2xx (for example 303 or 409).', []),
    proxy_url: f.string().url().default('').describe('An HTTP proxy to send requests through.'),
  };
}
