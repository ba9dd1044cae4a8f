/**
 * The hub's REST API as the tests and bench/governance.mjs call it: JSON calls, and the admin's
 * first login with its forced password change. No node:test here, so a plain script can use it.
 */
import { request } from 'node:http';

/** A call from `localAddress` (fetch cannot choose it), answered as fetch answers. */
function fetchFrom(url: string, localAddress: string, init: { method: string; headers: Record<string, string>; body: string | undefined }): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method, headers: init.headers, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('error', reject);
      res.on('end', () => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
        resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, headers }));
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/**
 * A JSON call to the hub's REST API; `from`: the local address to call from (any of 127.0.0.0/8
 * on loopback), for what the hub decides by the caller's address; `headers` added or replaced;
 * `text`: the body as written instead of `body` as JSON.
 */
export async function rest<T = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  opts: { key?: string; cookie?: string; body?: unknown; from?: string; headers?: Record<string, string>; text?: string } = {},
): Promise<{ status: number; body: T; headers: Headers }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.cookie) headers.cookie = opts.cookie;
  Object.assign(headers, opts.headers);
  const payload = opts.text ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  const r =
    opts.from === undefined
      ? await fetch(`${base}${path}`, { method, headers, body: payload })
      : await fetchFrom(`${base}${path}`, opts.from, { method, headers, body: payload });
  const text = await r.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: r.status, body: body as T, headers: r.headers };
}

/** Logs in as admin with the one-time password, changes it, and returns a fresh access key. */
export async function adminKey(base: string, oneTime: string, newPassword = 'a-long-new-password-1'): Promise<string> {
  const cookie = await login(base, oneTime);
  const changed = await rest(base, 'POST', '/api/users/me/password/', { cookie, body: { current_password: oneTime, new_password: newPassword } });
  if (changed.status !== 200) throw new Error(`password change: ${changed.status} ${JSON.stringify(changed.body)}`);
  return accessKey(base, cookie);
}

/** Logs in as admin; the session cookie. */
export async function login(base: string, password: string): Promise<string> {
  const r = await rest(base, 'POST', '/api/login/', { body: { username: 'admin', password } });
  if (r.status !== 200) throw new Error(`login: ${r.status} ${JSON.stringify(r.body)}`);
  return String(r.headers.get('set-cookie')).split(';')[0]!;
}

/** A new access key for the logged-in user. */
export async function accessKey(base: string, cookie: string): Promise<string> {
  const key = await rest<{ key: string }>(base, 'POST', '/api/users/me/keys/', { cookie, body: { name: 'test' } });
  if (key.status !== 201) throw new Error(`access key: ${key.status} ${JSON.stringify(key.body)}`);
  return key.body.key;
}
