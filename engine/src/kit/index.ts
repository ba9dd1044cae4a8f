/**
 * `@svc/engine/kit`: the plumbing two plugins would otherwise each write (Benthos keeps the like
 * in `public/service`'s helpers). A plugin imports it from `@svc/engine/kit`, as it imports the
 * plugin API from `@svc/engine`; the main door stays the component API.
 *
 *   import { PushInput, PullInput, readBody, BodyError, Router } from '@svc/engine/kit';
 */
export { FOREVER, WindowTable, windowTableBytes, type WindowState } from './window-table.js';
// State every process of a multi-process stream sees alike, kept by the primary.
export { ProcessLink, ProcessStore, ReplicatedMap, processLink, type TakeResult } from '../processes/process-link.js';
export { RateBreaker, type BreakerEvent, type RateBreakerConfig } from './rate-breaker.js';
export { ProcessWindowTable } from '../processes/process-window-table.js';
export { ConfigDocument, parseConfigDocument, readConfigDocument, type DocumentFormat, type DocumentOptions } from '../config/config-document.js';
// What an input that is pushed to (a server, an agent) and a plugin that serves HTTP build on.
export { PushInput, type Pushed } from '../runtime/push-input.js';
// What an input that pulls from a broker or a queue (Redis, NATS, SQS) builds on.
export { PullInput } from './pull-input.js';
// The ack of an input's own transaction, settled once (what PushInput and PullInput give theirs).
export { trackAck } from './track-ack.js';
// One HTTP server module: the service server, http_server's own server and the gateway listen with it.
export {
  HttpListener,
  type HttpListenerOptions,
  type Http1ListenerOptions,
  type Http2ListenerOptions,
  type HttpRequest,
  type HttpResponse,
  type UpgradeListener,
} from '../http/listener.js';
export { parseAddress, type ListenAddress } from '../http/address.js';
export { loadTlsFiles, type TlsFiles } from '../http/tls.js';
export { Cors, type CorsRequest, type CorsResponse } from '../http/cors.js';
export { readBody, BodyError, type BodyStatus, type BodyStream } from '../http/request-body.js';
export { Deadline } from '../http/deadline.js';
export { Router, ANY_METHOD, type RouterOptions, type TrailingSlash, type RouteMatch, type MethodNotAllowed } from '../http/router.js';
export { RoutePattern, safeDecode } from '../http/route-pattern.js';
// Benthos' scanners, for inputs that read byte streams (files, objects).
export { SCANNER_DESCRIPTION, parseScanner, scannerField, type Scanner } from '../components/io/scanner.js';
// Regular expressions from configs and requests, compiled once (bounded).
export { compiledRe2 } from './re2-cache.js';
// JSON Schema checked as Benthos checks it (gojsonschema's words), for the json_schema processor.
export { JsonSchema } from '../interp/json-schema.js';
// Waiting and bounding: back-off between attempts, sleeps one stop() ends, a counting semaphore, a log that speaks once per period.
export { Backoff, Sleeps, sleep } from '../runtime/backoff.js';
export { Semaphore } from '../runtime/semaphore.js';
export { ThrottledLog } from '../observability/throttled-log.js';
