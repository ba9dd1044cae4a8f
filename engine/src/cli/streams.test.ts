/**
 * End to end: `engine streams` runs two configs in one process with the REST API, and a stream
 * replaced through the API under HTTP load loses nothing: every request answered 200 was
 * written by the old stream or the new one. Real engine process, real sockets on loopback.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../testing/free-port.js';

const ENGINE = fileURLToPath(new URL('./main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-streams-'));
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const SECRET = 'streams-test-secret';
const auth = { Authorization: `Bearer ${SECRET}` };

function lines(path: string): string[] {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

describe('engine streams', () => {
  it('runs two configs, answers the REST API, replaces a stream under load with nothing lost', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const outA = join(dir, 'a.out');
    const outB = join(dir, 'b.out');
    const obs = join(dir, 'obs.yaml');
    writeFileSync(obs, `http: { address: 127.0.0.1:${port} }\nlogger: { level: WARN }\nshutdown_timeout: 10s\n`);
    const streamA = (tag: string) => `input:
  http_server: { path: /ingest }
pipeline:
  processors:
    - mapping: 'root = content().string() + " ${tag}"'
output:
  file: { path: ${outA}, codec: lines }
`;
    writeFileSync(join(dir, 'a.yaml'), streamA('v1'));
    writeFileSync(join(dir, 'b.yaml'), `input:\n  generate: { mapping: 'root = "tick"', interval: 20ms }\noutput:\n  file: { path: ${outB}, codec: lines }\n`);
    const child = spawn(process.execPath, [ENGINE, 'streams', '-o', obs, '--api-secret', SECRET, join(dir, 'a.yaml'), join(dir, 'b.yaml')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let log = '';
    child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));

    for (let i = 0; ; i++) {
      const r = await fetch(`${base}/ready`).catch(() => undefined);
      if (r?.status === 200) break;
      if (i > 200 || child.exitCode !== null) assert.fail(`not ready: ${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }

    // The API needs its secret.
    assert.equal((await fetch(`${base}/streams`)).status, 401);
    const list = (await (await fetch(`${base}/streams`, { headers: auth })).json()) as Record<string, { active: boolean }>;
    assert.deepEqual(Object.keys(list).sort(), ['a', 'b']);
    assert.equal(list.a!.active, true);

    // A stream's config comes back as `engine echo` shows it: normalised, defaults filled in.
    const one = (await (await fetch(`${base}/streams/a`, { headers: auth })).json()) as {
      active: boolean;
      config: { input: { http_server: { path: string } }; pipeline: { threads: number } };
    };
    assert.equal(one.active, true);
    assert.equal(one.config.input.http_server.path, '/ingest');
    assert.equal(one.config.pipeline.threads, -1);

    // A broken config is refused with its line and column, and nothing changes.
    const bad = await fetch(`${base}/streams/c`, { method: 'POST', headers: auth, body: 'input:\n  generate: { count: "x" }\noutput:\n  drop: {}\n' });
    assert.equal(bad.status, 400);
    const lint = (await bad.json()) as { lint_errors: Array<{ line: number; column: number; message: string }> };
    assert.equal(lint.lint_errors[0]!.line, 2);
    assert.ok(lint.lint_errors[0]!.column > 0);

    // Load on stream a while it is replaced.
    let sent = 0;
    const ok: string[] = [];
    let stop = false;
    const worker = async (w: number) => {
      while (!stop && sent < 5000) {
        const body = `w${w}-${sent++}`;
        try {
          const r = await fetch(`${base}/ingest`, { method: 'POST', body });
          await r.arrayBuffer();
          if (r.status === 200) ok.push(body);
        } catch {
          // a connection cut during the swap: not answered 200, so not counted
        }
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(worker));
    const until = async (what: string, cond: () => boolean) => {
      for (let i = 0; !cond(); i++) {
        if (i > 400) assert.fail(`gave up waiting: ${what}\n${log}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    await until('the first answers', () => ok.length >= 20);
    const put = await fetch(`${base}/streams/a`, { method: 'PUT', headers: auth, body: streamA('v2') });
    assert.equal(put.status, 200, await put.clone().text());
    const before = ok.length;
    await until('answers from the new stream', () => ok.length >= before + 20);
    stop = true;
    await load;

    const written = new Set(lines(outA).map((l) => l.split(' ')[0]));
    const missing = ok.filter((b) => !written.has(b));
    assert.deepEqual(missing, [], `${missing.length} of ${ok.length} acknowledged requests were lost`);
    assert.ok(ok.length >= 40, `the load got through: ${ok.length} answered 200`);
    assert.ok(
      lines(outA).some((l) => l.endsWith(' v1')) && lines(outA).some((l) => l.endsWith(' v2')),
      `both versions served: ${lines(outA).length} lines, ok ${ok.length}, first ${lines(outA)[0]}, last ${lines(outA).at(-1)}\n${log}`,
    );

    // Delete b: it drains and is gone.
    assert.equal((await fetch(`${base}/streams/b`, { method: 'DELETE', headers: auth })).status, 200);
    assert.equal((await fetch(`${base}/streams/b`, { headers: auth })).status, 404);
    const ticks = lines(outB).length;
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(lines(outB).length, ticks, 'a removed stream writes nothing more');

    child.kill('SIGINT');
    assert.equal(await exited, 0, log);
  });
});
