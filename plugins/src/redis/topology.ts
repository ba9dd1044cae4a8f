/**
 * How a Redis component reaches Redis, by `kind` (as Benthos' go-redis UniversalClient): `simple`
 * one server; `cluster` a Redis Cluster, discovered from the URLs, each command sent to the node
 * owning its key's slot (MOVED and ASK followed); `failover` the master that the Sentinels at the
 * URLs name for `master`, followed across a failover. The URLs' user, password and database are the
 * data nodes' (a cluster has database 0 only); Sentinels are asked without credentials, as Benthos does.
 */
import type { RedisClientConfig } from './client.js';

type Lib = typeof import('@redis/client');

/** What a component's connection needs of a client, whatever the kind. */
export interface RedisHandle {
  readonly isReady: boolean;
  readonly isOpen: boolean;
  /** `timeout` (ms) fails a command that waits longer for its answer. */
  send(args: ReadonlyArray<string | Buffer>, timeout?: number): Promise<unknown>;
  subscribe(channel: string, listener: (message: Buffer, channel: Buffer) => void, patterns: boolean): Promise<unknown>;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): unknown;
}

/** Told when the client loses or finds Redis again. */
interface RedisEvents {
  failed(err: unknown): void;
  ready(): void;
}

interface OpenOptions {
  tls: Record<string, unknown> | undefined;
  typeMapping: Record<number, unknown>;
  reconnect: (attempt: number) => number;
  /** How long a connection attempt may take (the client's default, 5 s, when absent). */
  connectTimeout?: number;
  /** True once the component closed the connection: a start-up retry stops. */
  closed: () => boolean;
}

/** The URLs of `url`, comma-separated as Benthos reads them, `tcp://` read as `redis://`. */
function redisUrls(url: string): URL[] {
  return url.split(',').map((u) => new URL(u.trim().replace(/^tcp:\/\//, 'redis://')));
}

/** Opens (without connecting) the client that `conf.kind` names. */
export function openHandle(conf: RedisClientConfig, lib: Lib, o: OpenOptions, on: RedisEvents): RedisHandle {
  const urls = redisUrls(conf.url);
  const first = urls[0]!;
  const node = {
    RESP: 3 as const,
    disableOfflineQueue: true,
    ...(conf.client_name !== '' ? { name: conf.client_name } : {}),
    ...(first.username !== '' ? { username: decodeURIComponent(first.username) } : {}),
    ...(first.password !== '' ? { password: decodeURIComponent(first.password) } : {}),
  };
  const socket = {
    ...(o.tls ? { tls: true, ...o.tls } : {}),
    ...(o.connectTimeout !== undefined ? { connectTimeout: o.connectTimeout } : {}),
    reconnectStrategy: o.reconnect,
  };
  if (conf.kind === 'cluster') {
    const c = lib
      .createCluster({
        rootNodes: urls.map((u) => ({ socket: { host: u.hostname, port: Number(u.port || 6379) } })),
        defaults: { ...node, socket } as never,
      })
      .withTypeMapping(o.typeMapping as never);
    c.on('error', on.failed);
    c.on('node-error', on.failed);
    // A node answers before the slots are known: the cluster is ready once discovery is done too.
    c.on('node-ready', () => c.isReady && on.ready());
    return {
      get isReady() {
        return c.isReady;
      },
      get isOpen() {
        return c.isOpen;
      },
      send: (args, timeout) => c.sendCommand(routingKey(args), undefined, args as string[], timeout ? { timeout } : undefined),
      subscribe: (ch, l, p) => (p ? c.pSubscribe(ch, l as never, true) : c.subscribe(ch, l as never, true)),
      connect: () => connectRetrying(c, o, on.failed),
      close: () => c.close(),
      destroy: () => c.destroy(),
    };
  }
  if (conf.kind === 'failover') {
    const db = Number(first.pathname.slice(1) || 0);
    const s = lib
      .createSentinel({
        name: conf.master,
        sentinelRootNodes: urls.map((u) => ({ host: u.hostname, port: Number(u.port || 26379) })),
        nodeClientOptions: { ...node, ...(db !== 0 ? { database: db } : {}), socket } as never,
        sentinelClientOptions: { socket } as never,
      })
      .withTypeMapping(o.typeMapping as never);
    s.on('error', on.failed);
    s.on('ready', on.ready);
    return {
      get isReady() {
        return s.isReady;
      },
      get isOpen() {
        return s.isOpen;
      },
      send: (args, timeout) => s.sendCommand(undefined, args as string[], timeout ? { timeout } : undefined),
      subscribe: (ch, l, p) => (p ? s.pSubscribe(ch, l as never, true) : s.subscribe(ch, l as never, true)),
      connect: () => connectRetrying(s, o, on.failed),
      close: () => s.close(),
      destroy: () => s.destroy(),
    };
  }
  const c = lib.createClient({ url: first.href, ...node, socket: socket as never }).withTypeMapping(o.typeMapping as never);
  c.on('error', on.failed);
  c.on('ready', on.ready);
  return {
    get isReady() {
      return c.isReady;
    },
    get isOpen() {
      return c.isOpen;
    },
    send: (args, timeout) => c.sendCommand(args as string[], timeout ? { timeout } : undefined),
    subscribe: (ch, l, p) => (p ? c.pSubscribe(ch, l as never, true) : c.subscribe(ch, l as never, true)),
    connect: () => c.connect(),
    close: () => c.close(),
    destroy: () => c.destroy(),
  };
}

/**
 * A cluster's or a sentinel's first discovery is not retried by the library: an outage at start-up
 * is ridden out here, with the client's own back-off, until it connects or is closed.
 */
async function connectRetrying(c: { connect(): Promise<unknown> }, o: OpenOptions, failed: (err: unknown) => void): Promise<void> {
  for (let n = 0; !o.closed(); n++) {
    try {
      await c.connect();
      return;
    } catch (err) {
      failed(err);
      await new Promise((r) => setTimeout(r, o.reconnect(n)).unref());
    }
  }
}

/**
 * The key a cluster routes a command by: the slot's owner answers at once. A command whose key
 * sits elsewhere than here (a module's, a rare subcommand's) still arrives: the node asked answers
 * MOVED and the client follows it.
 */
function routingKey(args: ReadonlyArray<string | Buffer>): string | Buffer | undefined {
  const name = String(args[0] ?? '').toUpperCase();
  switch (name) {
    case 'XREAD':
    case 'XREADGROUP': {
      const at = args.findIndex((a) => String(a).toUpperCase() === 'STREAMS');
      return at < 0 ? undefined : args[at + 1];
    }
    case 'EVAL':
    case 'EVALSHA':
    case 'EVAL_RO':
    case 'EVALSHA_RO':
    case 'FCALL':
    case 'FCALL_RO':
      return Number(args[2]) > 0 ? args[3] : undefined;
    case 'XGROUP':
    case 'XINFO':
    case 'OBJECT':
    case 'MEMORY':
      return args[2];
    default:
      return args[1];
  }
}
