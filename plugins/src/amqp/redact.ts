/**
 * Broker URLs carry passwords (`amqp://user:secret@host/`) and cannot be declared secret as a
 * whole, so every URL that reaches a log line or an error goes through here first.
 */

/** What a password is replaced with (as Go's `url.Redacted` does). */
export const REDACTED = 'xxxxx';

/** The URL with its password replaced by `xxxxx`; user, host, port and vhost stay readable. */
export function redactUrl(url: string): string {
  // By hand rather than through `URL`: it must also work on URLs `URL` cannot parse.
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*):[^@/?#]*@/i, `$1:${REDACTED}@`);
}

/** The passwords of `urls`, as written and percent-decoded, longest first. */
function passwords(urls: readonly string[]): string[] {
  const out = new Set<string>();
  for (const url of urls) {
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^:/?#@]*:([^@/?#]*)@/i.exec(url);
    if (!m || m[1] === '') continue;
    out.add(m[1]!);
    try {
      out.add(decodeURIComponent(m[1]!));
    } catch {
      // not valid percent-encoding: the raw form is all there is
    }
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/**
 * Text (an error from the client library, a log line) with every URL of `urls` redacted and any
 * of their passwords that still shows replaced, however the library chose to quote it.
 */
export function scrub(text: string, urls: readonly string[]): string {
  let out = text;
  for (const url of urls) if (url !== redactUrl(url)) out = out.split(url).join(redactUrl(url));
  for (const p of passwords(urls)) out = out.split(p).join(REDACTED);
  return out;
}
