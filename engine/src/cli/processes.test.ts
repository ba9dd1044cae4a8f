import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { freePort } from '../testing/free-port.js';

const ENGINE = fileURLToPath(new URL('./main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-procs-'));

function post(port: number, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/post', method: 'POST', agent: false, headers: { 'content-length': body.length } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    // A connection the primary was handing to the killed child may never be answered: the client's own timeout ends it.
    req.setTimeout(3_000, () => req.destroy(new Error('no answer')));
    req.end(body);
  });
}

interface Line {
  msg: string;
  pid?: number;
}

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

function start(name: string, port: number, out: string, servicePort?: number) {
  const cfg = join(dir, `${name}.yaml`);
  const service = servicePort === undefined ? '{ enabled: false }' : `{ address: 127.0.0.1:${servicePort} }`;
  writeFileSync(
    cfg,
    `http: ${service}\nlogger: { level: INFO, format: json }\ninput:\n  http_server: { address: 127.0.0.1:${port}, processes: 2 }\noutput:\n  file: { path: ${out}, codec: lines }\n`,
  );
  const child = spawn(process.execPath, [ENGINE, '-c', cfg], { cwd: dir });
  let err = '';
  child.stderr.on('data', (d: Buffer) => {
    err += d;
    if (process.env.PROCS_DEBUG) process.stdout.write(`# ${d}`);
  });
  const lines = (): Line[] =>
    err
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Line);
  const until = (cond: () => boolean): Promise<void> =>
    new Promise((resolve, reject) => {
      const poll = setInterval(() => {
        if (cond()) {
          clearInterval(poll);
          resolve();
        } else if (child.exitCode !== null) {
          clearInterval(poll);
          reject(new Error(`the engine exited (${child.exitCode}): ${err}`));
        }
      }, 10);
    });
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  return { child, lines, until, exited, stderr: () => err };
}

describe('a stream in several processes (processes: 2)', () => {
  it('loses no acknowledged request when a child is killed under load, and replaces it', async () => {
    const port = await freePort();
    const out = join(dir, 'kill.txt');
    const e = start('kill', port, out);
    const serving = (): Line[] => e.lines().filter((l) => /^Child process \d+ is serving$/.test(l.msg));
    await e.until(() => serving().length === 2);
    const acked: string[] = [];
    let failed = 0;
    let n = 0;
    let running = true;
    const client = async (c: number): Promise<void> => {
      while (running) {
        const id = `c${c}-${n++}`;
        try {
          if ((await post(port, id)) === 200) acked.push(id);
          else failed++;
        } catch {
          failed++; // unanswered: the client sees it fail
        }
      }
    };
    const clients = Array.from({ length: 8 }, (_, c) => client(c));
    await e.until(() => acked.length >= 200);
    const victim = serving()[0]?.pid;
    assert.ok(victim);
    process.kill(victim, 'SIGKILL');
    await e.until(() => e.lines().some((l) => /crashed \(signal SIGKILL\): starting another/.test(l.msg)) && serving().length === 3);
    const before = acked.length;
    await e.until(() => acked.length >= before + 200);
    running = false;
    await Promise.all(clients);
    e.child.kill('SIGTERM');
    const code = await e.exited;
    const written = new Set(readFileSync(out, 'utf8').split('\n'));
    const lost = acked.filter((id) => !written.has(id));
    assert.deepEqual(lost, [], `acknowledged but not written (${acked.length} acked, ${failed} failed)`);
    assert.equal(code, 1, 'a crash during the run makes the exit status 1');
    assert.ok(
      e.lines().some((l) => l.msg.includes('1 child process(es) crashed')),
      e.stderr(),
    );
  });

  it('serves from every child, and SIGTERM drains them all and exits 0', async () => {
    const port = await freePort();
    const out = join(dir, 'term.txt');
    const e = start('term', port, out);
    await e.until(() => e.lines().filter((l) => /is serving$/.test(l.msg)).length === 2);
    const ids = Array.from({ length: 200 }, (_, i) => `m${i}`);
    const codes = await Promise.all(ids.map((id) => post(port, id)));
    assert.deepEqual(new Set(codes), new Set([200]));
    e.child.kill('SIGTERM');
    assert.equal(await e.exited, 0, e.stderr());
    assert.deepEqual(new Set(readFileSync(out, 'utf8').trim().split('\n')), new Set(ids));
    const stopped = e.lines().filter((l) => /^Child process \d+ stopped \(code 0\)$/.test(l.msg));
    assert.equal(stopped.length, 2, e.stderr());
    // Every child wrote the log lines of its own stream, marked with its process.
    const marked = new Set(e.lines().map((l) => (l as { process?: string }).process));
    assert.ok(marked.has('1') && marked.has('2') && marked.has('primary'), e.stderr());
  });

  it('/metrics on the service port counts the requests of every child, whichever child the scrape lands on', async () => {
    const [port, servicePort] = [await freePort(), await freePort()];
    const e = start('metrics', port, join(dir, 'metrics.txt'), servicePort);
    const serving = (): Line[] => e.lines().filter((l) => /^Child process \d+ is serving$/.test(l.msg));
    await e.until(() => serving().length === 2);
    // Each request on its own connection: the primary hands connections to the children in turn.
    const codes = await Promise.all(Array.from({ length: 100 }, (_, i) => post(port, `n${i}`)));
    assert.deepEqual(new Set(codes), new Set([200]));
    const received = (text: string): number => {
      const line = text.split('\n').find((l) => l.startsWith('svc_input_received{'));
      return Number(line?.split(' ').pop());
    };
    // Scrapes land on either child (connections are handed round): every one counts all 100.
    for (let i = 0; i < 4; i++) {
      const m = await get(servicePort, '/metrics');
      assert.equal(m.status, 200, m.body);
      assert.equal(received(m.body), 100, m.body);
    }
    e.child.kill('SIGTERM');
    assert.equal(await e.exited, 0, e.stderr());
  });
});
