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
  registry,
  type Batch,
  type ComponentContext,
  type ComponentKind,
  type Field,
  type Input,
  type LogFields,
  type Logger,
  type LogLevelName,
  type Output,
  type Processor,
  type RateLimit,
  type RouteHandler,
  type ServiceRoutes,
  type UpgradeHandler,
} from '@svc/engine';

export interface LogLine {
  level: LogLevelName;
  msg: string;
}

export class RecordingLogger implements Logger {
  readonly lines: LogLine[] = [];
  private add(level: LogLevelName, msg: string): void {
    this.lines.push({ level, msg });
  }
  fatal(msg: string): void {
    this.add('FATAL', msg);
  }
  error(msg: string): void {
    this.add('ERROR', msg);
  }
  warn(msg: string): void {
    this.add('WARN', msg);
  }
  info(msg: string): void {
    this.add('INFO', msg);
  }
  debug(msg: string): void {
    this.add('DEBUG', msg);
  }
  trace(msg: string): void {
    this.add('TRACE', msg);
  }
  enabled(): boolean {
    return true;
  }
  child(_fields?: LogFields): Logger {
    return this;
  }
}

/** A stand-in for the service-wide server: exact and prefix mounts, upgrades, on loopback. */
export class FakeService implements ServiceRoutes {
  readonly routes = new Map<string, { handler: RouteHandler; upgrade?: UpgradeHandler }>();
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
    if (this.routes.has(path)) throw new Error(`route ${path} already mounted`);
    this.routes.set(path, { handler, upgrade });
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

const unavailable = (what: string) => (): never => {
  throw new Error(`${what} is not available in the test context`);
};

export interface TestContext extends ComponentContext {
  readonly logger: RecordingLogger;
}

export function testContext(opts: { service?: ServiceRoutes; rateLimits?: Record<string, RateLimit>; type?: string } = {}): TestContext {
  const type = opts.type ?? 'test';
  return {
    path: `root.test.${type}`,
    label: type,
    type,
    logger: new RecordingLogger(),
    resources: {
      rateLimit: (label) => {
        const r = opts.rateLimits?.[label];
        if (!r) throw new Error(`rate limit ${label} is not defined`);
        return r;
      },
      hasRateLimit: (label) => Boolean(opts.rateLimits?.[label]),
    },
    service: opts.service,
    isWorker: false,
    sharedBuffer: (_key, bytes) => new SharedArrayBuffer(bytes),
    buildProcessors: unavailable('buildProcessors'),
    buildInput: unavailable('buildInput'),
    buildOutput: unavailable('buildOutput'),
  };
}

/** The value with the field's defaults applied (objects: field by field). */
export function withDefaults<T>(field: Field<T>, value?: unknown): T {
  if (field.kind === 'object' && field.fields) {
    const given = (value ?? {}) as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, child] of Object.entries(field.fields)) out[k] = withDefaults(child, given[k]);
    return out as T;
  }
  if (value === undefined && field.hasDefault) return structuredClone(field.defaultValue) as T;
  return value as T;
}

/** The lint problems of a value (each field's own check), as `path: message`. */
export function lint(field: Field<unknown>, value: unknown, path = 'config'): string[] {
  const out: string[] = [];
  // An absent object is its fields' defaults, as the config validator fills it.
  if (value === undefined && field.kind === 'object' && field.fields) value = {};
  if (value === undefined) return field.required ? [`${path}: required`] : out;
  if (field.options && !field.options.includes(value as string)) out.push(`${path}: expected one of ${field.options.join(', ')}`);
  if (field.kind === 'object' && field.fields) {
    for (const [k, child] of Object.entries(field.fields)) out.push(...lint(child, (value as Record<string, unknown>)[k], `${path}.${k}`));
  }
  if (field.kind === 'array' && field.item && Array.isArray(value)) value.forEach((v, i) => out.push(...lint(field.item!, v, `${path}.${i}`)));
  const problem = field.check?.(value);
  if (problem) out.push(`${path}: ${problem}`);
  return out;
}

export async function build<T>(kind: ComponentKind, name: string, config: unknown, ctx: ComponentContext = testContext()): Promise<T> {
  const reg = registry().get(kind, name);
  if (!reg) throw new Error(`${kind} ${name} is not registered`);
  return (await reg.spec.factory(withDefaults(reg.spec.config, config), ctx)) as T;
}

/**
 * A small runtime: reads transactions, runs the processors (messages with a reply skip the rest
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
      for (const b of batches) for (const out of await p.process(b)) {
        const kept = out.filter((m) => !m.replied);
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

export interface Upstream {
  url: string;
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer }>;
  close(): Promise<void>;
  server: http.Server;
}

/** A real upstream on loopback: records each request and answers with `handler`. */
export async function upstream(handler: (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse, n: number) => void): Promise<Upstream> {
  const requests: Upstream['requests'] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handler(req, body, res, requests.length);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    server,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
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
  ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'server.ext');
  writeFileSync(p('client.ext'), 'extendedKeyUsage=clientAuth\n');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=svc client/O=svc tests');
  ssl('x509', '-req', '-in', 'client.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'client.crt', '-days', '2', '-extfile', 'client.ext');
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
export async function rawExchange(port: number, chunks: Array<string | Buffer>, opts: { gapMs?: number; waitMs?: number } = {}): Promise<{ text: string; closedByServer: boolean; ms: number }> {
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
