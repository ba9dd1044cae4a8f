/**
 * A redis-server of a test's own on a free loopback port, for tests that stop Redis mid-run
 * (the shared one on 6379 serves other tests and must stay up). No persistence; killed when
 * the test file ends, even when an assertion failed first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import { after } from 'node:test';
import { freePort } from './free-port.js';
import { waitFor } from './services.js';

const running = new Set<ChildProcess>();
after(() => {
  for (const c of running) c.kill('SIGKILL');
});

/** True when something on the port answers a PING with +PONG. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(1_000, () => done(false));
    sock.once('error', () => done(false));
    sock.once('connect', () => sock.write('PING\r\n'));
    sock.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

export class RedisServer {
  private child?: ChildProcess;

  constructor(readonly port: number) {}

  static async start(): Promise<RedisServer> {
    const s = new RedisServer(await freePort());
    await s.start();
    return s;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts (or restarts) the server on its port; resolves once it answers PING. */
  async start(): Promise<void> {
    const child = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(this.port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    this.child = child;
    running.add(child);
    child.once('exit', () => running.delete(child));
    await waitFor(`redis-server on port ${this.port}`, async () => ((await pong(this.port)) ? true : undefined), 15_000, 50);
  }

  /** SIGKILL: the server is gone at once, as in a crash; resolves once it exited. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
}
