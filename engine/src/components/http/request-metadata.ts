/**
 * The metadata an http_server input adds to each message, as Benthos does: user agent, path,
 * verb, remote IP, every header (first value, Go's canonical name), every query parameter
 * (first value), the path parameters and the cookies; over TLS also the TLS version, cipher
 * suite and (when the client presented a verified certificate) its subject.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { MetaValue } from '@svc/engine';
import { canonicalHeader } from './multipart.js';
import { safeDecode } from '@svc/engine/kit';

/** What is known of a request before its body is read. */
export interface RequestInfo {
  method: string;
  /** The decoded path. */
  path: string;
  /** The query parameters; undefined when the target has no query. */
  query: URLSearchParams | undefined;
  headers: IncomingHttpHeaders;
  remoteAddress: string | undefined;
  socket: unknown;
}

/** Splits a request target into its decoded path and its query. */
export function splitTarget(url: string | undefined): { path: string; query: URLSearchParams | undefined } {
  let target = url ?? '/';
  if (!target.startsWith('/')) {
    try {
      const u = new URL(target);
      target = u.pathname + u.search;
    } catch {
      target = '/';
    }
  }
  const hash = target.indexOf('#');
  if (hash >= 0) target = target.slice(0, hash);
  const q = target.indexOf('?');
  if (q < 0) return { path: target.includes('%') ? safeDecode(target) : target, query: undefined };
  return { path: safeDecode(target.slice(0, q)), query: new URLSearchParams(target.slice(q + 1)) };
}

/** `::ffff:127.0.0.1` (an IPv4 client of a dual-stack socket) is `127.0.0.1`, as Go reports it. */
export function plainIp(addr: string | undefined): string | undefined {
  return addr?.startsWith('::ffff:') ? addr.slice(7) : addr;
}

/** The cookies of a Cookie header, by name (first value wins). */
export function parseCookies(header: string | undefined): Array<[string, string]> {
  if (!header) return [];
  const out: Array<[string, string]> = [];
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    let v = pair.slice(eq + 1).trim();
    if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
    out.push([pair.slice(0, eq).trim(), v]);
  }
  return out;
}

/** Go's crypto/x509 Name.String(): RDNs in reverse order, comma-separated. */
function subjectString(subject: Record<string, string | string[]>): string {
  const order = ['CN', 'OU', 'O', 'POSTALCODE', 'STREET', 'L', 'ST', 'C'];
  const parts: string[] = [];
  for (const k of order) {
    const v = subject[k];
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) parts.push(`${k}=${one}`);
  }
  return parts.join(',');
}

/** Header names repeat from request to request: their canonical form is computed once. */
const CANONICAL = new Map<string, string>();
function canonical(name: string): string {
  let c = CANONICAL.get(name);
  if (c === undefined) {
    c = canonicalHeader(name);
    if (CANONICAL.size < 10_000) CANONICAL.set(name, c);
  }
  return c;
}

/** The metadata of a request (`withRequestLine`: path, verb and remote IP, not for websockets). */
export function requestMetadata(info: RequestInfo, params: Record<string, string>, withRequestLine: boolean): Map<string, MetaValue> {
  const meta = new Map<string, MetaValue>();
  meta.set('http_server_user_agent', (info.headers['user-agent'] as string | undefined) ?? '');
  if (withRequestLine) {
    meta.set('http_server_request_path', info.path);
    meta.set('http_server_verb', info.method);
    const ip = plainIp(info.remoteAddress);
    if (ip) meta.set('http_server_remote_ip', ip);
  }
  const tls = info.socket as Partial<TLSSocket> | undefined;
  if (withRequestLine && tls && typeof tls.getProtocol === 'function' && tls.encrypted) {
    meta.set('http_server_tls_version', tls.getProtocol() ?? '');
    const cipher = tls.getCipher?.();
    if (cipher) meta.set('http_server_tls_cipher_suite', cipher.standardName || cipher.name);
    if (tls.authorized) {
      const peer = tls.getPeerCertificate?.();
      if (peer && peer.subject) meta.set('http_server_tls_subject', subjectString(peer.subject as unknown as Record<string, string>));
    }
  }
  const headers = info.headers;
  for (const k in headers) {
    const v = headers[k];
    if (v === undefined || k.charCodeAt(0) === 58 /* ':' */) continue;
    meta.set(canonical(k), Array.isArray(v) ? (v[0] ?? '') : v);
  }
  if (info.query?.size) {
    const seen = new Set<string>();
    for (const [k, v] of info.query) {
      if (seen.has(k)) continue;
      seen.add(k);
      meta.set(k, v);
    }
  }
  for (const k in params) meta.set(k, params[k]!);
  const cookie = headers.cookie as string | undefined;
  if (cookie) for (const [k, v] of parseCookies(cookie)) meta.set(k, v);
  return meta;
}
