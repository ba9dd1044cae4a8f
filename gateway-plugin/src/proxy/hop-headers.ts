/**
 * Hop-by-hop headers: they describe one connection, not the message, so a proxy never forwards
 * them, in either direction (RFC 9110 §7.6.1; Tyk's `hopHeaders` in gateway/reverse_proxy.go).
 * The headers a `Connection` header names are hop-by-hop too. Names are lower-case, as Node and
 * undici give them.
 */

const HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * True when `name` (lower-case) is hop-by-hop. `TE: trailers` is the one exception Tyk forwards
 * (it only says the client accepts trailers); `value` is read for that case alone.
 */
export function isHopHeader(name: string, value: unknown): boolean {
  return HOP.has(name) && !(name === 'te' && value === 'trailers');
}

/**
 * The header names a `Connection` header lists (`Connection: close, X-Foo` makes `x-foo`
 * hop-by-hop), or undefined when it names none besides the usual keep-alive/close tokens: the
 * common case allocates nothing.
 */
export function connectionNamed(connection: string | string[] | undefined): Set<string> | undefined {
  if (connection === undefined) return undefined;
  const value = Array.isArray(connection) ? connection.join(',') : connection;
  const lower = value.toLowerCase();
  if (lower === 'keep-alive' || lower === 'close' || lower === 'upgrade') return undefined;
  let named: Set<string> | undefined;
  for (const token of lower.split(',')) {
    const t = token.trim();
    if (t && t !== 'keep-alive' && t !== 'close') (named ??= new Set()).add(t);
  }
  return named;
}
