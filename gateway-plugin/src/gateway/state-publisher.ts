/**
 * The main thread's side of a gateway's state sync: publishes every change of the state (APIs,
 * policies, sessions) to the workers' replicas with its version, answers a new replica's hello
 * with a snapshot, and applies the session writes workers send (a split token creating a key),
 * republishing them like its own. See `state-channel.ts` for the messages.
 */
import { randomUUID } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';
import { errorMessage, type Logger } from '@svc/engine';
import { MemorySessionStore } from '../sessions/memory-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { SessionState } from '../sessions/session.js';
import { channelName, type Published, type Request, type SessionEntry } from './state-channel.js';
import type { GatewayState } from './state.js';

/**
 * A session store that tells the publisher about every write made through it: the state's
 * `sessions`, so that a key created by the management API reaches every thread.
 */
export class SyncedSessionStore implements SessionStore {
  /** Set by the publisher; called after each write with what was written. */
  onWrite: ((keyId: string, session: SessionState | null, ttl: number) => number) | undefined;

  /** The session now, without a promise, when the inner store can (memory): `gateway_auth`'s hot path. */
  readonly read?: (keyId: string) => SessionState | undefined;

  get shared(): boolean {
    return this.inner.shared;
  }

  constructor(readonly inner: SessionStore) {
    const read = (inner as { read?: (keyId: string) => SessionState | undefined }).read;
    if (typeof read === 'function') this.read = (keyId) => read.call(inner, keyId);
  }

  get(keyId: string): Promise<SessionState | undefined> {
    return this.inner.get(keyId);
  }

  async set(keyId: string, session: SessionState, ttlSeconds = 0): Promise<void> {
    await this.inner.set(keyId, session, ttlSeconds);
    this.onWrite?.(keyId, session, ttlSeconds);
  }

  async delete(keyId: string): Promise<boolean> {
    const had = await this.inner.delete(keyId);
    if (had) this.onWrite?.(keyId, null, 0);
    return had;
  }

  keys(): Promise<string[]> {
    return this.inner.keys();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

export class StatePublisher {
  private readonly channel: BroadcastChannel;
  private readonly epoch = randomUUID();

  constructor(
    private readonly state: GatewayState,
    private readonly sessions: SyncedSessionStore,
    private readonly log: Logger,
  ) {
    this.channel = new BroadcastChannel(channelName(state.name));
    // The channel must not keep the process alive once the stream is done.
    this.channel.unref();
    this.channel.onmessage = (e) => void this.onRequest((e as MessageEvent).data as Request);
    state.onChange((c) => {
      const version = state.version;
      if (c.kind === 'apis') this.post({ t: 'apis', epoch: this.epoch, version, apis: state.allApis() });
      else this.post({ t: 'policies', epoch: this.epoch, version, policies: state.allPolicies() });
    });
    sessions.onWrite = (keyId, session, ttl) => {
      const version = state.bump();
      this.post({ t: 'session', epoch: this.epoch, version, keyId, session, expiresAt: ttl > 0 ? Date.now() + ttl * 1000 : 0 });
      return version;
    };
  }

  private post(m: Published): void {
    this.channel.postMessage(m);
  }

  private async onRequest(r: Request): Promise<void> {
    try {
      switch (r.t) {
        case 'hello':
          return this.post(this.snapshot());
        case 'set':
          await this.sessions.set(r.keyId, r.session, r.ttl);
          return this.post({ t: 'reply', id: r.id, version: this.state.version });
        case 'delete':
          await this.sessions.delete(r.keyId);
          return this.post({ t: 'reply', id: r.id, version: this.state.version });
        case 'get':
          return this.post({ t: 'reply', id: r.id, session: (await this.sessions.get(r.keyId)) ?? null });
      }
    } catch (err) {
      this.log.warn(`gateway state: a worker's request failed: ${errorMessage(err)}`);
      if (r.t !== 'hello') this.post({ t: 'reply', id: r.id, error: errorMessage(err) });
    }
  }

  /** The whole state; sessions only when they live in this process's memory (else workers ask). */
  private snapshot(): Published {
    const s = this.state;
    let sessions: SessionEntry[] | null = null;
    const inner = this.sessions.inner;
    if (inner instanceof MemorySessionStore) sessions = inner.entriesNow();
    return { t: 'snapshot', epoch: this.epoch, version: s.version, config: s.config, apis: s.allApis(), policies: s.allPolicies(), sessions };
  }

  close(): void {
    this.channel.close();
  }
}
