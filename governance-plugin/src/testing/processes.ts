/**
 * The governance tests' real processes: `engine hub`, `engine agent` and a gateway, started with
 * node_modules/.bin/engine, their output kept, every one killed when the test file ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
export const ENGINE = join(root, 'node_modules/.bin/engine');
const running = new Set<ChildProcess>();
after(() => {
  for (const c of running) c.kill('SIGKILL');
});

export interface Proc {
  child: ChildProcess;
  out(): string;
  /** Resolves once `pattern` appears in the output (rejects after `ms`, with the output). */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  /** SIGINT (or `signal`), then the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

export function engine(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Proc {
  const child = spawn(ENGINE, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const w of waiters) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      for (const w of waiters) w();
      resolve(code);
    }),
  );
  return {
    child,
    out: () => out,
    exited,
    waitFor(pattern, ms = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(out);
          if (m) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(m);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`the process exited before ${pattern} appeared; it said:\n${out}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${pattern} did not appear within ${ms} ms; the process said:\n${out}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    async stop(signal = 'SIGINT') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
  };
}

/** A JSON call to the hub's REST API. */
export async function rest<T = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  opts: { key?: string; cookie?: string; body?: unknown } = {},
): Promise<{ status: number; body: T; headers: Headers }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.cookie) headers.cookie = opts.cookie;
  const r = await fetch(`${base}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
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
