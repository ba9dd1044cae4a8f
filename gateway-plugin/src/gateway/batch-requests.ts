/**
 * Tyk's batch requests (`enable_batch_request_support`; gateway/batch_requests.go, v5.14.0): a POST
 * to `{listen_path}/tyk/batch/` carries `{"requests": [{method, relative_url, headers, body}],
 * "suppress_parallel_execution"}`; each request is sent over loopback HTTP to this gateway's own
 * port under the API's listen path, so it runs the API's whole chain (auth, limits, quotas) as any
 * client's request does, and the answer is the list of replies `{relative_url, code, headers, body}`
 * as Go's json.Encoder writes it. The batch endpoint itself runs no middleware (Tyk routes it
 * beside the API's chain). Other methods get an empty 200, as Tyk's handler writes nothing.
 *
 * Bounded, where Tyk is not: at most {@link MAX_REQUESTS} requests a batch (a 400 past it), the
 * replies' bodies together at most {@link MAX_REPLY_BYTES} (a reply past it is Tyk's empty reply
 * for a failed request), redirects followed only on this gateway (Go's client follows up to 10
 * anywhere). Replies come in the order of the requests, also in parallel (Tyk's come as they end).
 */
import * as http from 'node:http';
import type { Answer } from '@svc/engine';
import { goString } from '../languages/go-shape.js';
import type { ApiSpec } from '../apis/api-spec.js';
import { joinListenPath } from './loop-target.js';
import { ownValue } from '../kernel/own-value.js';
import { statusMessage } from '../management/replies.js';

export const MAX_REQUESTS = 64;
export const MAX_REPLY_BYTES = 16 * 1024 * 1024;
const MAX_REDIRECTS = 10;

export const MALFORMED = statusMessage(400, 'Batch request malformed');
/**
 * Marks the gateway's own sub-requests (set after the client's headers, so it cannot be taken
 * off): a batch sent as a sub-request is refused, where Tyk runs it and each level multiplies the
 * work by up to 64. The input drops the header from every request, so no upstream sees it.
 */
export const BATCH_HOP = 'x-svc-batch-hop';
export const NESTED = statusMessage(400, 'Batch request malformed: a batch cannot be sent from a batch');
const NOT_CONSTRUCTED = statusMessage(400, 'Batch request creation failed , request structure malformed');
const TOO_MANY = statusMessage(400, `Batch request malformed: more than ${MAX_REQUESTS} requests`);
/** What Tyk's handler writes for a method other than POST: nothing (net/http's empty 200). */
export const NOT_POSTED: Answer = { status: 200 };

/** The batch endpoint's path for `api`. */
export function batchPath(api: ApiSpec): string {
  return joinListenPath(api.listenPath, '/tyk/batch/');
}

interface SubRequest {
  method: string;
  relativeUrl: string;
  headers: Array<[string, string]>;
  body: string;
}

interface Reply {
  relativeUrl: string;
  code: number;
  headers: Map<string, string[]> | undefined;
  body: string;
}

/** A field of a decoded object as Go's decoder finds it: the exact name, else one equal ignoring case. */
function goField(obj: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(obj, name)) return ownValue(obj, name);
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : ownValue(obj, key);
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads a string field as Go decodes it into a string (null and absent: ""; another type: malformed). */
function str(obj: Record<string, unknown>, name: string): string {
  const v = goField(obj, name);
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw MALFORMED;
  return v;
}

/** The batch as Tyk's DecodeBatchRequest reads it, or the 400 it answers. */
export function decodeBatch(body: Buffer): { requests: SubRequest[]; sequential: boolean } | Answer {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString());
  } catch {
    return MALFORMED;
  }
  if (doc === null) return { requests: [], sequential: false };
  if (!isObj(doc)) return MALFORMED;
  try {
    const list = goField(doc, 'requests');
    const sequential = goField(doc, 'suppress_parallel_execution');
    if (sequential !== undefined && sequential !== null && typeof sequential !== 'boolean') return MALFORMED;
    if (list !== undefined && list !== null && !Array.isArray(list)) return MALFORMED;
    const items = (list as unknown[] | null | undefined) ?? [];
    if (items.length > MAX_REQUESTS) return TOO_MANY;
    const requests = items.map((item): SubRequest => {
      if (item === null) return { method: '', relativeUrl: '', headers: [], body: '' };
      if (!isObj(item)) throw MALFORMED;
      const h = goField(item, 'headers');
      if (h !== undefined && h !== null && !isObj(h)) throw MALFORMED;
      const headers = Object.entries(h ?? {}).map(([k, v]): [string, string] => {
        if (typeof v !== 'string') throw MALFORMED;
        return [k, v];
      });
      return { method: str(item, 'method'), relativeUrl: str(item, 'relative_url'), headers, body: str(item, 'body') };
    });
    return { requests, sequential: sequential === true };
  } catch (err) {
    if (err === MALFORMED) return MALFORMED;
    throw err;
  }
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/** The request target Go's http.NewRequest makes of `relative_url` under the listen path, or undefined where it fails. */
function targetOf(api: ApiSpec, r: SubRequest): string | undefined {
  if (r.method !== '' && !TOKEN.test(r.method)) return undefined;
  // Tyk joins "http://localhost:port", the listen path trimmed of slashes and relative_url with "/".
  const trimmed = api.listenPath.replace(/^\/+|\/+$/g, '');
  let raw = `/${trimmed}/${r.relativeUrl}`;
  if (raw.includes('#')) raw = raw.slice(0, raw.indexOf('#'));
  // url.Parse refuses control characters, and a bad escape in the path (the query stays as written).
  if (CONTROL.test(raw) || BAD_ESCAPE.test(raw.split('?')[0]!)) return undefined;
  // Go writes the path escaped (a space as %20); what is escaped already stays.
  return raw.replace(/[^!-~]/gu, (c) => encodeURIComponent(c));
}

/** Go's textproto.CanonicalMIMEHeaderKey: `content-type` → `Content-Type`. */
function canonical(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}

/** What Go's client keeps out of Response.Header (framing and the connection's own). */
const NOT_KEPT = new Set(['transfer-encoding', 'connection', 'keep-alive']);

const FAILED: Reply = { relativeUrl: '', code: 0, headers: undefined, body: '' };

/** A shared budget of reply bytes for one batch. */
interface Budget {
  left: number;
}

/** One request to the gateway's own `port`, redirects on it followed as Go's client follows them. */
function send(port: number, method: string, path: string, r: SubRequest, budget: Budget, hops = 0): Promise<Reply> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { host: `localhost:${port}` };
    for (const [k, v] of r.headers) headers[k.toLowerCase()] = v;
    headers[BATCH_HOP] = '1';
    const body = method === 'GET' && hops > 0 ? '' : r.body;
    if (body !== '') headers['content-length'] = String(Buffer.byteLength(body));
    const req = http.request({ host: '127.0.0.1', port, method: method || 'GET', path, headers, agent: false }, (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if ([301, 302, 303, 307, 308].includes(status) && location !== undefined && hops < MAX_REDIRECTS) {
        const next = new URL(location, `http://localhost:${port}${path}`);
        if (next.host === `localhost:${port}` && next.protocol === 'http:') {
          res.resume();
          const again = status === 307 || status === 308 ? method : method === 'HEAD' ? 'HEAD' : 'GET';
          return void send(port, again, next.pathname + next.search, status === 307 || status === 308 ? r : { ...r, body: '' }, budget, hops + 1).then(resolve);
        }
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        budget.left -= c.length;
        if (budget.left < 0) {
          res.destroy();
          return resolve(FAILED);
        }
        chunks.push(c);
      });
      res.on('error', () => resolve(FAILED));
      res.on('end', () => {
        const h = new Map<string, string[]>();
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = canonical(res.rawHeaders[i]!);
          if (NOT_KEPT.has(name.toLowerCase())) continue;
          const list = h.get(name);
          if (list) list.push(res.rawHeaders[i + 1]!);
          else h.set(name, [res.rawHeaders[i + 1]!]);
        }
        resolve({ relativeUrl: r.relativeUrl, code: status, headers: h, body: Buffer.concat(chunks).toString() });
      });
    });
    req.on('error', () => resolve(FAILED));
    req.end(body === '' ? undefined : body);
  });
}

/** The replies as Go's json.Encoder writes `[]BatchReplyUnit` (header names sorted, a final newline). */
function encode(replies: Reply[]): Buffer {
  const unit = (r: Reply): string => {
    const headers =
      r.headers === undefined
        ? 'null'
        : `{${[...r.headers.keys()]
            .sort()
            .map((k) => `${goString(k)}:[${r.headers!.get(k)!.map(goString).join(',')}]`)
            .join(',')}}`;
    return `{"relative_url":${goString(r.relativeUrl)},"code":${r.code},"headers":${headers},"body":${goString(r.body)}}`;
  };
  return Buffer.from(`[${replies.map(unit).join(',')}]\n`);
}

/** Answers a batch posted for `api` with `body`, its requests sent to the gateway's `port`. */
export async function answerBatch(api: ApiSpec, port: number, body: Buffer): Promise<Answer> {
  const batch = decodeBatch(body);
  if (!('requests' in batch)) return batch;
  const targets = batch.requests.map((r) => targetOf(api, r));
  if (targets.some((t) => t === undefined)) return NOT_CONSTRUCTED;
  const budget: Budget = { left: MAX_REPLY_BYTES };
  const one = (i: number): Promise<Reply> => send(port, batch.requests[i]!.method, targets[i]!, batch.requests[i]!, budget);
  let replies: Reply[];
  if (batch.sequential) {
    replies = [];
    for (let i = 0; i < batch.requests.length; i++) replies.push(await one(i));
  } else replies = await Promise.all(batch.requests.map((_, i) => one(i)));
  return { status: 200, headers: { 'content-type': 'application/json' }, body: encode(replies) };
}
