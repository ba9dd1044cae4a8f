/**
 * A worker thread's replica of a gateway's state, fed by the main thread over the gateway's
 * `BroadcastChannel` (see `state-channel.ts`). Made on first use by `gatewayState(name)` on a
 * worker: it says hello, the main thread answers with a snapshot, then every change follows with
 * its version. `atLeast(v)` resolves once the replica has applied version `v`, so a request that
 * saw version `v` on the main thread (`GatewayRequest.version`) sees at least that here: a key
 * created through the management API is valid on every thread as soon as its create answered.
 *
 * Session writes made here (a split token creating a key) go to the main thread, which applies
 * and republishes them; the write resolves once this replica has the version it became.
 */
import { BroadcastChannel, isMainThread } from 'node:worker_threads';
import type { GatewayConfig } from '../conf/gateway-config.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { SessionState } from '../sessions/session.js';
import { channelName, type Published, type Request } from './state-channel.js';
import { GatewayState, setReplicaFactory } from './state.js';

/** A replica that hears nothing from the main thread for this long fails the waits on it. */
const SYNC_TIMEOUT_MS = 10_000;

let replicas = 0;

interface Waiter {
  version: number;
  resolve: () => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/** The sessions of a replica: a copy when the main thread keeps them in memory, else asked for. */
class ReplicaSessions implements SessionStore {
  /** keyId → [session, expiresAt]; null until the snapshot says the sessions are copied. */
  copy: Map<string, [SessionState, number]> | null = null;

  /** Set by the replica's constructor (the sessions are made before it, for `super()`). */
  replica!: GatewayReplica;

  /** Shared when the main thread keeps sessions in Redis (then this replica asks, holding no copy). */
  get shared(): boolean {
    return this.copy === null;
  }

  get(keyId: string): Promise<SessionState | undefined> {
    if (this.copy === null) return this.replica.ask({ t: 'get', keyId }).then((r) => r.session ?? undefined);
    const e = this.copy.get(keyId);
    if (e === undefined) return Promise.resolve(undefined);
    if (e[1] !== 0 && e[1] <= Date.now()) return Promise.resolve(undefined);
    return Promise.resolve(e[0]);
  }

  async set(keyId: string, session: SessionState, ttlSeconds = 0): Promise<void> {
    const r = await this.replica.ask({ t: 'set', keyId, session, ttl: ttlSeconds });
    await this.replica.atLeast(r.version ?? 0);
  }

  async delete(keyId: string): Promise<boolean> {
    const had = this.copy === null ? true : this.copy.has(keyId);
    const r = await this.replica.ask({ t: 'delete', keyId });
    await this.replica.atLeast(r.version ?? 0);
    return had;
  }

  keys(): Promise<string[]> {
    return Promise.resolve(this.copy === null ? [] : [...this.copy.keys()]);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

export class GatewayReplica extends GatewayState {
  private readonly channel: BroadcastChannel;
  private readonly waiters: Waiter[] = [];
  private readonly asks = new Map<string, { resolve: (r: Extract<Published, { t: 'reply' }>) => void; reject: (e: Error) => void }>();
  private readonly prefix = `${process.pid}.${Math.random().toString(36).slice(2)}.${++replicas}.`;
  private asked = 0;
  private synced = false;
  /** The main thread's state this replica follows (see `Published`). */
  private epoch = '';
  private readonly replicaSessions: ReplicaSessions;

  constructor(name: string) {
    // The config arrives with the snapshot; nothing reads it before `atLeast` resolved.
    const sessions = new ReplicaSessions();
    super({ name, config: {} as GatewayConfig, apis: [], policies: [], sessions });
    sessions.replica = this;
    this.replicaSessions = sessions;
    this.version = 0;
    this.channel = new BroadcastChannel(channelName(name));
    this.channel.unref();
    this.channel.onmessage = (e) => this.onPublished((e as MessageEvent).data as Published);
    this.send({ t: 'hello' });
  }

  override atLeast(version: number): Promise<void> | undefined {
    if (this.synced && this.version >= version) return undefined;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new Error(`gateway ${this.name}: this thread's state did not reach version ${version} within ${SYNC_TIMEOUT_MS} ms (has ${this.version})`));
      }, SYNC_TIMEOUT_MS);
      const w: Waiter = { version, resolve, reject, timer };
      this.waiters.push(w);
      // Ask again: the main thread may have started after this replica said hello.
      if (!this.synced) this.send({ t: 'hello' });
    });
  }

  /** Sends a request to the main thread and resolves with its reply. */
  ask(
    r: { t: 'set'; keyId: string; session: SessionState; ttl: number } | { t: 'delete'; keyId: string } | { t: 'get'; keyId: string },
  ): Promise<Extract<Published, { t: 'reply' }>> {
    const id = this.prefix + ++this.asked;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.asks.delete(id);
        reject(new Error(`gateway ${this.name}: the main thread did not answer within ${SYNC_TIMEOUT_MS} ms`));
      }, SYNC_TIMEOUT_MS);
      this.asks.set(id, {
        resolve: (m) => {
          clearTimeout(timer);
          if (m.error !== undefined) reject(new Error(m.error));
          else resolve(m);
        },
        reject,
      });
      this.send({ ...r, id } as Request);
    });
  }

  private send(r: Request): void {
    this.channel.postMessage(r);
  }

  private onPublished(m: Published): void {
    if (m.t === 'reply') {
      const a = this.asks.get(m.id);
      if (a) {
        this.asks.delete(m.id);
        a.resolve(m);
      }
      return;
    }
    if (m.t === 'snapshot') {
      if (this.synced && m.epoch === this.epoch && m.version < this.version) return;
      this.epoch = m.epoch;
      this.config = m.config;
      this.replaceApis(m.apis);
      this.replacePolicies(m.policies);
      this.replicaSessions.copy = m.sessions === null ? null : new Map(m.sessions.map(([k, s, e]) => [k, [s, e]]));
      this.version = m.version;
      this.synced = true;
      return this.wake();
    }
    // A gateway started again: start over from its snapshot.
    if (this.synced && m.epoch !== this.epoch) {
      this.synced = false;
      this.send({ t: 'hello' });
      return;
    }
    // A change before the snapshot is in it (or in a later one); an old one was applied already.
    if (!this.synced || m.version <= this.version) return;
    if (m.t === 'apis') this.replaceApis(m.apis);
    else if (m.t === 'policies') this.replacePolicies(m.policies);
    else if (this.replicaSessions.copy !== null) {
      if (m.session === null) this.replicaSessions.copy.delete(m.keyId);
      else this.replicaSessions.copy.set(m.keyId, [m.session, m.expiresAt]);
    }
    this.version = m.version;
    this.wake();
  }

  private wake(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if (w.version <= this.version) {
        this.waiters.splice(i, 1);
        clearTimeout(w.timer);
        w.resolve();
      }
    }
  }

  close(): void {
    this.channel.close();
  }
}

// On a pipeline worker, a gateway's state is a replica of the main thread's.
if (!isMainThread) setReplicaFactory((name) => new GatewayReplica(name));
