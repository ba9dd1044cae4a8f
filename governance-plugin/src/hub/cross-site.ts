/**
 * What keeps another site's page from changing the hub through a logged-in browser (CSRF): a
 * state-changing call (anything but GET, HEAD, OPTIONS) is refused when the browser says it comes
 * from elsewhere (an `Origin` other than the hub's own, `Sec-Fetch-Site: cross-site`), and its
 * body must be JSON: a form or a `text/plain` body, which any page may send without asking, is
 * refused. Clients that are not browsers send neither header and are not affected.
 */
import type { IncomingMessage } from 'node:http';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Why the call is refused (403 or 415), or undefined when it may go on. */
export function crossSiteProblem(req: IncomingMessage): { status: 403 | 415; message: string } | undefined {
  if (SAFE.has(req.method ?? 'GET')) return undefined;
  const origin = req.headers.origin;
  if (origin !== undefined && !sameOrigin(origin, req.headers.host))
    return { status: 403, message: `a state-changing call from another origin is refused (Origin ${JSON.stringify(origin.slice(0, 100))} is not this hub)` };
  if (req.headers['sec-fetch-site'] === 'cross-site') return { status: 403, message: 'a state-changing call from another site is refused' };
  const type = req.headers['content-type'];
  const hasBody = (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined;
  if ((type !== undefined || hasBody) && !isJson(type)) return { status: 415, message: 'the request body must be JSON: send content-type: application/json' };
  return undefined;
}

function isJson(type: string | undefined): boolean {
  const media = (type ?? '').split(';')[0]!.trim().toLowerCase();
  return media === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(media);
}

function sameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    const u = new URL(origin);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host === host.toLowerCase();
  } catch {
    return false;
  }
}
