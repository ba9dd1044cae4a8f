/**
 * Secrets never reach a log line, an error or `engine echo`. Fields declared `.secret()` are
 * scrubbed whole; URL fields (`.url()`) keep everything but their userinfo password, which is
 * shown as `xxxxx` (as Go's `url.URL.Redacted` and Benthos show it): the user, host, port and
 * path stay readable, so a log still says where the engine tried to connect.
 */

/** What a URL's password (or any secret found in a text) is replaced with. */
export const REDACTED = 'xxxxx';

// By hand rather than through `URL`: it must also work on what `URL` cannot parse (a comma
// list `amqp://u:p@h1,amqp://u:q@h2`, an interpolation `http://u:p@${! meta("host") }/`, a
// password with an unescaped `#` or `@`, a URL quoted inside a longer text). The userinfo runs
// to the last `@` before the path (or a space), so a stray `#`, `?` or `@` in a password cannot
// end it early and leave the rest of the password showing.
const USERINFO = String.raw`([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s,]*):([^/\s]*)@`;
const USERINFO_ANYWHERE_RE = new RegExp(USERINFO, 'gi');

/**
 * The URL with its password replaced by `xxxxx` (every URL in it, for a comma list or a text
 * quoting URLs); anything without a `scheme://user:password@` is returned as it is.
 */
export function redactUrl(url: string): string {
  return url.replace(USERINFO_ANYWHERE_RE, (_m, head: string, password: string) => (password === '' ? `${head}:@` : `${head}:${REDACTED}@`));
}

/** The passwords in a URL (or comma list of URLs), as written and percent-decoded. */
export function urlPasswords(url: string): string[] {
  const out = new Set<string>();
  for (const m of url.matchAll(USERINFO_ANYWHERE_RE)) {
    if (m[2] === '') continue;
    out.add(m[2]!);
    out.add(decoded(m[2]!));
  }
  return [...out];
}

/**
 * Text (an error from a client library, a log line) with every URL of `urls` redacted and any of
 * `secrets` or of the URLs' passwords that still shows replaced, however the library quoted it.
 * Secrets shorter than 3 characters are left alone: replacing every `a` would ruin the text and
 * hide nothing.
 */
export function scrubSecrets(text: string, secrets: readonly string[], urls: readonly string[] = []): string {
  let out = text;
  for (const url of urls) {
    const shown = redactUrl(url);
    if (shown !== url) out = out.split(url).join(shown);
  }
  const all = [...secrets, ...urls.flatMap(urlPasswords)].filter((s) => s.length >= 3).sort((a, b) => b.length - a.length);
  for (const s of all) out = out.split(s).join(REDACTED);
  return out;
}

/**
 * Splits a URL's credentials off into a basic `Authorization` header, so the request goes
 * without userinfo (Node's `url.parse` warns about it with the whole URL, password included, and
 * fetch refuses it) and the URL left can be printed as it is.
 */
export function urlCredentials(url: string): { url: string; authorization?: string } {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/\s]*)@/i.exec(url);
  if (!m) return { url };
  const colon = m[2]!.indexOf(':');
  const [user, password] = colon < 0 ? [m[2]!, ''] : [m[2]!.slice(0, colon), m[2]!.slice(colon + 1)];
  const credentials = `${decoded(user)}:${decoded(password)}`;
  return { url: m[1]! + url.slice(m[0].length), authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/** Percent-decoded; text that is not valid percent-encoding is returned as it is. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
