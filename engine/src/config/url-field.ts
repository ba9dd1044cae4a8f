/**
 * What a URL field (`.url()`) accepts, checked at lint so a typo never reaches a client library:
 * Node's `url.parse` (jaeger-client, prom-client, amqplib) prints a DeprecationWarning quoting a
 * URL it cannot read, password included, and a client given a broken URL fails far from the
 * line that holds it. A URL is read as WHATWG `URL` reads it (a port past 65535 or with a letter
 * in it, a password with an unescaped `#`, `/` or `?` are refused); the problem names the URL with
 * its password redacted.
 */
import { redactUrl } from './redact.js';

/**
 * What a URL field takes besides `scheme://...`: `host:port` (a collector), a file path, or
 * `hosts`: several `host:port` after the scheme, separated by commas (a MongoDB replica set's
 * `mongodb://u:p@h1:27017,h2:27017/db`, which WHATWG `URL` cannot read).
 */
export type UrlAlternative = 'host:port' | 'path' | 'hosts';

/** The authority of a URL (after any userinfo) up to its path, query or fragment. */
const HOST_LIST_RE = /^([a-z][a-z0-9+.-]*:\/\/(?:[^/?#]*@)?)([^/?#@]*)/i;

const SCHEME_RE = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The problem with `text` as the value of a URL field, or undefined when it is fine. Empty (not
 * set) and interpolated values (`${! ... }`, known only per message) are not judged here.
 */
export function urlProblem(text: string, also?: UrlAlternative): string | undefined {
  const url = text.trim();
  if (url === '' || url.includes('${!')) return undefined;
  if (SCHEME_RE.test(url)) {
    // A host list is read as its first host: each host is `host[:port]` as that one is.
    const one = also === 'hosts' ? url.replace(HOST_LIST_RE, (_m, head: string, hosts: string) => head + hosts.split(',')[0]) : url;
    if (also === 'hosts' && one !== url) {
      const hosts = HOST_LIST_RE.exec(url)![2]!.split(',');
      const bad = hosts.find((h) => !URL.canParse(`http://${h}`) || h === '');
      if (bad !== undefined) return `"${redactUrl(url)}" is not a valid URL: "${bad}" is not host[:port]`;
    }
    return URL.canParse(one)
      ? undefined
      : `"${redactUrl(url)}" is not a valid URL: check the host and port, and percent-encode any @ # / ? in the user or password (%40 %23 %2F %3F)`;
  }
  if (also === 'path') return undefined;
  if (also === 'host:port') {
    return /^[^\s/:]+:\d+$|^\[[0-9a-f:.]+\]:\d+$/i.test(url) && URL.canParse(`http://${url}`)
      ? undefined
      : `"${redactUrl(url)}" is neither host:port (such as localhost:4317) nor a URL (such as http://localhost:4318)`;
  }
  return `"${redactUrl(url)}" is not a URL: expected scheme://host[:port][/path], such as http://localhost:9091`;
}

/** Where a comma starts another URL (`redis://a:1,redis://b:2`): a list written in one string. */
const NEXT_URL_RE = /,(?=\s*[a-z][a-z0-9+.-]*:\/\/)/i;

/**
 * The problem with a URL field's value: a string (which may list whole URLs with commas), or a
 * list whose items may be comma lists.
 */
export function urlFieldProblem(value: unknown, also?: UrlAlternative): string | undefined {
  if (typeof value === 'string') {
    for (const url of value.split(NEXT_URL_RE)) {
      const problem = urlProblem(url, also);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (!Array.isArray(value)) return undefined;
  for (const item of value) {
    if (typeof item !== 'string') continue;
    for (const url of item.split(',')) {
      const problem = urlProblem(url, also);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}
