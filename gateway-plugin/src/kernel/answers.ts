/**
 * Writing answers on the live response: a processor's `Answer`, and the answers the gateway's
 * router gives itself exactly as Tyk's Go stack gives them (its 404 is net/http's plain
 * "Not Found", its 301 gorilla/mux's empty redirect, an unparsable target net/http's 400).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Answer } from '@svc/engine';
import { overrideAnswer } from './error-override.js';

/** Bodies up to this size go out as a latin1 string, in one write with the head. */
const ONE_WRITE_MAX = 16 * 1024;

/** True once nothing more can be written (the proxy answered, or the client went away). */
export function answered(res: ServerResponse): boolean {
  return res.headersSent || res.writableEnded || res.destroyed;
}

/**
 * Writes `a` (headers as given, Content-Length from the body), or what the API's error overrides
 * make of it (`error-override.ts`); `close` ends the connection after it.
 */
export function writeAnswer(req: IncomingMessage, res: ServerResponse, given: Answer, close = false): void {
  if (answered(res)) return;
  const a = overrideAnswer(res, given);
  const body = a.body === undefined ? undefined : Buffer.from(a.body.buffer, a.body.byteOffset, a.body.byteLength);
  const headers: Record<string, string | string[] | number> = {};
  if (a.headers) for (const [k, v] of Object.entries(a.headers)) headers[k] = v;
  headers['content-length'] = body?.length ?? 0;
  if (close && req.httpVersionMajor < 2) headers['connection'] = 'close';
  res.writeHead(a.status, headers);
  if (body === undefined || body.length === 0) res.end();
  // node:http writes a string body together with the head in one write; latin1 keeps the bytes.
  else if (body.length <= ONE_WRITE_MAX) res.end(body.toString('latin1'), 'latin1');
  else res.end(body);
}

const TEXT = { 'content-type': 'text/plain; charset=utf-8' };

/** Tyk's answer for a path no API listens on (`proxyMux.handle404`). */
export const NOT_FOUND: Answer = { status: 404, headers: TEXT, body: Buffer.from('Not Found') };

/** net/http's answer to a request target it cannot parse (a bad escape, `*`). */
export const BAD_REQUEST: Answer = { status: 400, headers: TEXT, body: Buffer.from('400 Bad Request') };

/** net/http's answer to a request with two Host fields (nginx refuses it too): node keeps the first silently. */
export const TOO_MANY_HOSTS: Answer = { status: 400, headers: TEXT, body: Buffer.from('400 Bad Request: too many Host headers') };

/** True when the head has more than one Host field (`rawHeaders`: name, value, name, value…). */
export function duplicateHost(rawHeaders: string[]): boolean {
  let seen = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length !== 4 || name.toLowerCase() !== 'host') continue;
    if (seen) return true;
    seen = true;
  }
  return false;
}

/** gorilla/mux's answer to a path that is not clean: a 301 to the clean path, no body. */
export function redirect(location: string): Answer {
  return { status: 301, headers: { location } };
}

/** The management API's JSON (Go's json.Encoder: compact, a final newline). */
export function jsonAnswer(status: number, value: unknown, headers: Record<string, string> = {}): Answer {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: Buffer.from(JSON.stringify(value) + '\n') };
}

/** JSON text already written as Go writes it, answered as Tyk's json.Encoder does (a final newline). */
export function jsonText(text: string): Answer {
  return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(`${text}\n`) };
}
