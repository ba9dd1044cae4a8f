/**
 * Test helpers for the http family (used by the `*.test.ts` files only): a ComponentContext
 * (with a stand-in for the service-wide server: a real node:http server on loopback that routes
 * mounts and upgrades like the engine's), components built from configs with their defaults, a
 * small runtime loop that drives input → processors → output with acks, real upstream servers,
 * and a test CA with server and client certificates made by openssl.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import {
  END_OF_INPUT,
  isAnswered,
  type Batch,
  type ComponentContext,
  type ComponentKind,
  type Input,
  type Output,
  type Processor,
  type RateLimit,
  type RouteHandler,
  type ServiceRoutes,
  type UpgradeHandler,
} from '@svc/engine';
import { buildComponent, testContext as engineTestContext, type TestContext } from '@svc/engine/testing';

export { lintValue as lint, upstream, type TestContext } from '@svc/engine/testing';

/** A stand-in for the service-wide server: exact and prefix mounts, upgrades, on loopback. */
export class FakeService implements ServiceRoutes {
  readonly routes = new Map<string, { handler: RouteHandler; upgrade?: UpgradeHandler; released?: boolean }>();
  readonly server: http.Server;
  private readonly sockets = new Set<Socket>();

  constructor() {
    this.server = http.createServer((req, res) => {
      const r = this.match(req.url ?? '/');
      if (!r) {
        res.writeHead(404).end('not found\n');
        return;
      }
      r.handler(req, res);
    });
    this.server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      const r = this.match(req.url ?? '/');
      if (!r?.upgrade) return void socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      r.upgrade(req, socket, head);
    });
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
  }

  private match(url: string) {
    const path = url.split('?')[0]!;
    const exact = this.routes.get(path);
    if (exact) return exact;
    let best: string | undefined;
    for (const k of this.routes.keys()) if (k.endsWith('/') && path.startsWith(k) && (!best || k.length > best.length)) best = k;
    return best ? this.routes.get(best) : undefined;
  }

  mount(path: string, handler: RouteHandler, _description?: string, upgrade?: UpgradeHandler): void {
    if (this.routes.has(path) && !this.routes.get(path)!.released) throw new Error(`route ${path} already mounted`);
    this.routes.set(path, { handler, upgrade });
  }

  release(path: string): void {
    const r = this.routes.get(path);
    if (r) r.released = true;
  }

  unmount(path: string): void {
    this.routes.delete(path);
  }

  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/** A context for a component under test (with a stand-in service and rate limits when given). */
export function testContext(opts: { service?: ServiceRoutes; rateLimits?: Record<string, RateLimit>; type?: string } = {}): TestContext {
  return engineTestContext(opts);
}

export function build<T>(kind: ComponentKind, name: string, config: unknown, ctx: ComponentContext = testContext()): Promise<T> {
  return buildComponent<T>(kind, name, config, ctx);
}

/**
 * A small runtime: reads transactions, runs the processors (answered messages skip the rest
 * and the output, as the engine does), writes to the output and acks; nacks on a failed write.
 * `concurrency` transactions run at once. Stops when `stop()` is called or the input ends.
 */
export function drive(input: Input, processors: Processor[], output: Output | undefined, concurrency = 16): { stop: () => Promise<void>; done: Promise<void> } {
  let stopping = false;
  const inflight = new Set<Promise<void>>();
  const one = async (batch: Batch, ack: (e?: Error) => void) => {
    let batches: Batch[] = [batch];
    for (const p of processors) {
      const next: Batch[] = [];
      for (const b of batches)
        for (const out of await p.process(b)) {
          const kept = out.filter((m) => !isAnswered(m));
          if (kept.length) next.push(kept);
        }
      batches = next;
    }
    try {
      for (const b of batches) if (output) await output.write(b);
      ack();
    } catch (err) {
      ack(err instanceof Error ? err : new Error(String(err)));
    }
  };
  const done = (async () => {
    await input.connect?.();
    while (!stopping) {
      while (inflight.size >= concurrency) await Promise.race(inflight);
      const tx = await input.read();
      if (tx === END_OF_INPUT) break;
      const p = one(tx.batch, tx.ack).finally(() => inflight.delete(p));
      inflight.add(p);
    }
    await Promise.all(inflight);
  })();
  return {
    done,
    stop: async () => {
      stopping = true;
      await input.close?.();
      await done;
    },
  };
}

export interface TestCerts {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** The client key encrypted with `keyPassword` (PKCS#8). */
  clientKeyEncrypted: string;
  keyPassword: string;
  rsaKey: string;
  edKey: string;
  cleanup(): void;
}

/** A test CA, a server certificate for localhost/127.0.0.1 and a client certificate, by openssl. */
export function makeCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'svc-http-certs-'));
  const p = (n: string) => join(dir, n);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=svc test CA');
  writeFileSync(p('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  ssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.crt',
    '-days',
    '2',
    '-extfile',
    'server.ext',
  );
  writeFileSync(p('client.ext'), 'extendedKeyUsage=clientAuth\n');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=svc client/O=svc tests');
  ssl(
    'x509',
    '-req',
    '-in',
    'client.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'client.crt',
    '-days',
    '2',
    '-extfile',
    'client.ext',
  );
  ssl('pkcs8', '-topk8', '-in', 'client.key', '-out', 'client.enc.key', '-passout', 'pass:s3cret', '-v2', 'aes-256-cbc');
  ssl('genpkey', '-algorithm', 'ed25519', '-out', 'ed.key');
  return {
    dir,
    caCert: p('ca.crt'),
    serverCert: p('server.crt'),
    serverKey: p('server.key'),
    clientCert: p('client.crt'),
    clientKey: p('client.key'),
    clientKeyEncrypted: p('client.enc.key'),
    keyPassword: 's3cret',
    rsaKey: p('server.key'),
    edKey: p('ed.key'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A raw HTTP/1.1 exchange on a fresh socket: what the server wrote until it closed (or `waitMs`). */
export async function rawExchange(
  port: number,
  chunks: Array<string | Buffer>,
  opts: { gapMs?: number; waitMs?: number } = {},
): Promise<{ text: string; closedByServer: boolean; ms: number }> {
  const net = await import('node:net');
  const started = Date.now();
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let text = '';
    let closedByServer = false;
    let finished = false;
    const end = () => {
      if (finished) return;
      finished = true;
      clearTimeout(limit);
      sock.destroy();
      resolve({ text, closedByServer, ms: Date.now() - started });
    };
    const limit = setTimeout(end, opts.waitMs ?? 10_000);
    sock.on('data', (d) => (text += d.toString('latin1')));
    sock.on('end', () => {
      closedByServer = true;
      end();
    });
    sock.on('close', () => {
      closedByServer = true;
      end();
    });
    sock.on('error', () => end());
    sock.on('connect', async () => {
      for (const c of chunks) {
        if (finished || sock.destroyed) return;
        sock.write(c);
        if (opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
      }
    });
  });
}
