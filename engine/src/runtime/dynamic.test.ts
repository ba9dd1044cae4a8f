/**
 * The `dynamic` input and output through the `engine` CLI and their HTTP API. The answers expected
 * are those Benthos v4.51 gave for the same config and requests (`/tmp/peers/bin/benthos -c <config>`,
 * requests with fetch), except that svc asks for the streams API's Bearer secret (Benthos asks none)
 * and lists a static child without its config.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { waitFor } from '../testing/services.js';

const ENGINE = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-dynamic-'));
const SECRET = 'dyn-secret';
const AUTH = { authorization: `Bearer ${SECRET}` };

/** Runs `body` against an engine running `yaml`, with the API secret set; gives what it printed. */
async function withEngine(name: string, yaml: string, body: (base: string, out: () => string) => Promise<void>): Promise<void> {
  const cfg = join(dir, `${name}.yaml`);
  writeFileSync(cfg, `http: { address: "127.0.0.1:0" }\nlogger: { level: INFO, format: json }\n${yaml}`);
  const child = spawn(process.execPath, [ENGINE, '-c', cfg], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SVC_STREAMS_API_SECRET: SECRET },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  try {
    const port = await waitFor('the service HTTP server', async () => Number(/"address":"127\.0\.0\.1:(\d+)"/.exec(err)?.[1]) || undefined, 20_000, 20);
    // The server listens before the stream is built (it answers /ready 503 meanwhile); the dynamic
    // API is mounted when the stream is.
    await waitFor('the stream', async () => (err.includes('Launching a stream') ? true : undefined), 20_000, 20);
    await body(`http://127.0.0.1:${port}`, () => out);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const lines = (s: string) => s.split('\n').filter(Boolean);

async function call(base: string, method: string, path: string, body?: string): Promise<[number, string]> {
  const res = await fetch(base + path, { method, headers: AUTH, ...(body === undefined ? {} : { body }), signal: AbortSignal.timeout(10_000) });
  return [res.status, await res.text()];
}

describe('dynamic input and output (engine CLI, against Benthos v4.51)', () => {
  it('input: a posted input joins the feed, is listed with its config, and can be deleted; the API needs the secret', async () => {
    const yaml = `input:\n  dynamic:\n    inputs:\n      a:\n        generate: { count: 2, interval: '', mapping: 'root = "static"' }\noutput:\n  stdout: {}\n`;
    await withEngine('input', yaml, async (base, out) => {
      await waitFor('the static input', async () => (lines(out()).length >= 2 ? true : undefined), 20_000, 20);
      assert.equal((await fetch(`${base}/inputs`)).status, 401);
      assert.deepEqual(await call(base, 'GET', '/inputs/a/uptime'), [200, 'stopped']);
      const posted = "generate: { count: 3, interval: '', mapping: 'root = \"posted\"' }\n";
      assert.deepEqual(await call(base, 'POST', '/inputs/b', posted), [200, '']);
      await waitFor('the posted input', async () => (lines(out()).length >= 5 ? true : undefined), 20_000, 20);
      assert.deepEqual(lines(out()), ['static', 'static', 'posted', 'posted', 'posted']);
      assert.deepEqual(await call(base, 'GET', '/inputs/b'), [200, posted]);
      const [status, list] = await call(base, 'GET', '/inputs');
      assert.equal(status, 200);
      assert.deepEqual(JSON.parse(list), {
        a: { uptime: 'stopped', config: null, config_raw: '' },
        b: { uptime: 'stopped', config: { generate: { count: 3, interval: '', mapping: 'root = "posted"' } }, config_raw: posted },
      });
      const [bad, why] = await call(base, 'POST', '/inputs/c', 'nope: {}');
      assert.equal(bad, 502);
      assert.match(why, /^Error: .*unknown input type "nope"/);
      assert.deepEqual(await call(base, 'GET', '/inputs/zz'), [404, "Dynamic component 'zz' is not active\n"]);
      assert.deepEqual(await call(base, 'GET', '/inputs/zz/uptime'), [404, "Dynamic component 'zz' is unknown\n"]);
      assert.deepEqual(await call(base, 'DELETE', '/inputs/b'), [200, '']);
      assert.deepEqual(Object.keys(JSON.parse((await call(base, 'GET', '/inputs'))[1]) as object), ['a']);
    });
  });

  it('output: messages wait for an output, then go to every output posted; uptime is a Go duration', async () => {
    const yaml = `input:\n  generate: { interval: 20ms, mapping: 'root = "m" + count("c").string()' }\noutput:\n  dynamic:\n    prefix: /admin\n`;
    await withEngine('output', yaml, async (base, out) => {
      assert.deepEqual(await call(base, 'GET', '/admin/outputs'), [200, '{}']);
      assert.deepEqual(await call(base, 'POST', '/admin/outputs/x', 'stdout: {}'), [200, '']);
      await waitFor('the messages', async () => (lines(out()).length >= 3 ? true : undefined), 20_000, 20);
      // none was lost while there was no output: the first message waited for one
      assert.deepEqual(lines(out()).slice(0, 3), ['m1', 'm2', 'm3']);
      const [status, up] = await call(base, 'GET', '/admin/outputs/x/uptime');
      assert.equal(status, 200);
      assert.match(up, /^[0-9.]+(ns|µs|ms|s)$|^[0-9]+m[0-9.]+s$/);
    });
  });
});
