/**
 * The agent's connection to the hub: the two gRPC streams of proto/governance.proto, opened
 * with the agent token and license in metadata, TLS unless the hub is on a loopback address.
 * Heartbeats go out every interval on the Health stream; the Sync stream registers the agent and
 * then delivers the hub's sync requests. Lost (the hub restarted, the network went away, the
 * token was refused), both streams are opened again with capped, jittered exponential back-off,
 * and the log says what the agent is waiting for. Besides the hub's requests, the agent may start
 * a sync of its own ({@link HubConnection.scheduledSync}, its syncInterval): the hub's history
 * tells the two apart by the trigger sent with the completion.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from '@svc/engine';
import {
  AUTHORIZATION,
  LICENSE,
  governanceClient,
  grpc,
  isLoopbackHost,
  type HubMessage,
  type Provider,
  type ProviderResult,
} from '../wire/governance-wire.js';
import type { WireApi } from '../wire/api-record.js';

export interface HubConnectionOptions {
  /** `host:port`, no scheme. */
  address: string;
  token: string;
  license: string;
  agentVersion: string;
  heartbeatMs: number;
  providers: () => Provider[];
  log: Logger;
}

export type SyncTrigger = 'resync' | 'schedule';

interface Pending {
  resolve(): void;
  reject(err: Error): void;
}

/** How long a new connection may take to answer its first heartbeat. */
const ANSWER_MS = 10_000;

export class HubConnection extends EventEmitter {
  private client: grpc.Client | undefined;
  private health: grpc.ClientDuplexStream<unknown, unknown> | undefined;
  private sync: grpc.ClientDuplexStream<unknown, HubMessage> | undefined;
  private beat: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private attempt = 0;
  private closed = false;
  healthUp = false;
  syncUp = false;
  /** The sync being answered now ('' when none), and which run of it (a sync cut short is run again). */
  currentSync = '';
  syncRun = 0;
  /** A sync asked for and not yet acked by the hub: redone once the agent is registered again. */
  private unfinished = '';
  /** What started the unfinished sync: `resync` (the hub asked) or `schedule` (the agent's syncInterval). */
  private unfinishedTrigger: SyncTrigger = 'resync';
  private answerTimer: NodeJS.Timeout | undefined;
  private readonly acks = new Map<string, Pending>();
  private heartbeatMs: number;

  constructor(private readonly opts: HubConnectionOptions) {
    super();
    this.heartbeatMs = opts.heartbeatMs;
  }

  /** A fresh channel per attempt: grpc-js's own reconnect state of a channel to a hub that died is not trusted. */
  private newClient(): grpc.Client {
    this.client?.close();
    const host = this.opts.address.slice(0, this.opts.address.lastIndexOf(':'));
    const credentials = isLoopbackHost(host) ? grpc.credentials.createInsecure() : grpc.credentials.createSsl();
    const Client = governanceClient();
    return (this.client = new Client(this.opts.address, credentials, {
      'grpc.keepalive_time_ms': 30_000,
      'grpc.max_send_message_length': 16 * 1024 * 1024,
    }));
  }

  get up(): boolean {
    return this.healthUp && this.syncUp;
  }

  start(): void {
    this.open();
  }

  private metadata(): grpc.Metadata {
    const m = new grpc.Metadata();
    m.set(AUTHORIZATION, `Bearer ${this.opts.token}`);
    m.set(LICENSE, this.opts.license);
    return m;
  }

  private open(): void {
    if (this.closed) return;
    // A hub that takes the connection but never answers counts as gone.
    clearTimeout(this.answerTimer);
    this.answerTimer = setTimeout(() => {
      if (!this.healthUp) this.lost(new Error(`no answer within ${ANSWER_MS / 1000} s`));
    }, ANSWER_MS);
    this.answerTimer.unref();
    const client = this.newClient() as unknown as {
      Health(m: grpc.Metadata): grpc.ClientDuplexStream<unknown, unknown>;
      Sync(m: grpc.Metadata): grpc.ClientDuplexStream<unknown, HubMessage>;
    };
    const health = (this.health = client.Health(this.metadata()));
    health.on('data', () => {
      clearTimeout(this.answerTimer);
      if (!this.healthUp) {
        this.healthUp = true;
        this.opts.log.info('health stream established');
        this.openSync();
      }
    });
    health.on('error', (err: grpc.ServiceError) => this.lost(err));
    health.on('end', () => this.lost(new Error('the hub ended the health stream')));
    this.heartbeat();
    clearInterval(this.beat);
    this.beat = setInterval(() => this.heartbeat(), this.heartbeatMs);
    this.beat.unref();
  }

  private openSync(): void {
    const client = this.client as unknown as { Sync(m: grpc.Metadata): grpc.ClientDuplexStream<unknown, HubMessage> };
    const sync = (this.sync = client.Sync(this.metadata()));
    sync.on('data', (m: HubMessage) => this.onHubMessage(m));
    sync.on('error', (err: grpc.ServiceError) => this.lost(err));
    sync.on('end', () => this.lost(new Error('the hub ended the sync stream')));
    sync.write({ register: { agent_version: this.opts.agentVersion, providers: this.opts.providers() } });
  }

  private heartbeat(): void {
    this.health?.write({ agent_version: this.opts.agentVersion, providers: this.opts.providers(), sent_at_unix_ms: Date.now() });
  }

  private onHubMessage(m: HubMessage): void {
    if (m.registered) {
      // The hub says how often it wants heartbeats: it judges the agent by them.
      const wanted = Number(m.registered.heartbeat_interval_ms ?? 0);
      if (wanted >= 100 && wanted !== this.heartbeatMs) {
        this.heartbeatMs = wanted;
        clearInterval(this.beat);
        this.beat = setInterval(() => this.heartbeat(), this.heartbeatMs);
        this.beat.unref();
      }
      this.syncUp = true;
      this.attempt = 0;
      this.opts.log.info(`agent registered with sync stream established (agent ${m.registered.agent_name}, ${m.registered.agent_id})`);
      this.opts.log.info('waiting for sync requests');
      // A sync cut short is redone; one the 'up' listeners start now (a first scheduled sync) is not.
      const cut = this.unfinished;
      if (cut !== '') {
        this.opts.log.info(`sync ${cut} was cut short when the hub went away: running it again`);
        this.startSync(cut, this.unfinishedTrigger);
      }
      this.emit('up');
      return;
    }
    if (m.sync_request) {
      // The hub asks again for a sync this agent is already redoing: one run is enough.
      if (m.sync_request.sync_id !== this.currentSync) this.startSync(m.sync_request.sync_id, 'resync');
      return;
    }
    if (m.sync_ack && m.sync_ack.sync_id === this.unfinished) this.unfinished = '';
    const key = m.api_ack ? `api:${m.api_ack.sync_id}:${m.api_ack.provider_name}:${m.api_ack.api_id}` : m.sync_ack ? `sync:${m.sync_ack.sync_id}` : undefined;
    if (key === undefined) return;
    const p = this.acks.get(key);
    this.acks.delete(key);
    p?.resolve();
  }

  private startSync(id: string, trigger: SyncTrigger): void {
    this.currentSync = id;
    this.unfinished = id;
    this.unfinishedTrigger = trigger;
    this.emit('sync', id, ++this.syncRun);
  }

  /**
   * Starts a sync of the agent's own (its syncInterval), under a new sync id; false when the
   * hub is away or a sync is still unfinished (it is not queued: the next tick tries again).
   */
  scheduledSync(): boolean {
    if (!this.up || this.unfinished !== '') return false;
    this.startSync(randomUUID(), 'schedule');
    return true;
  }

  private waitAck(key: string, send: () => void): Promise<void> {
    if (!this.syncUp || this.sync === undefined) return Promise.reject(new Error('not connected to the hub'));
    return new Promise((resolve, reject) => {
      this.acks.get(key)?.reject(new Error('sent again'));
      this.acks.set(key, { resolve, reject });
      send();
    });
  }

  /** Sends one API of a sync; resolves when the hub has it. */
  sendApi(api: WireApi): Promise<void> {
    return this.waitAck(`api:${api.sync_id}:${api.provider_name}:${api.api_id}`, () => this.sync!.write({ api }));
  }

  /** Ends a sync; resolves when the hub applied it. */
  complete(syncId: string, apiCount: number, providers: ProviderResult[]): Promise<void> {
    const trigger = syncId === this.unfinished ? this.unfinishedTrigger : 'resync';
    return this.waitAck(`sync:${syncId}`, () => this.sync!.write({ complete: { sync_id: syncId, api_count: apiCount, providers, trigger } }));
  }

  private lost(err: Error | grpc.ServiceError): void {
    if (this.closed) return;
    const wasUp = this.healthUp || this.syncUp;
    this.healthUp = false;
    this.syncUp = false;
    this.currentSync = '';
    clearInterval(this.beat);
    clearTimeout(this.answerTimer);
    for (const s of [this.health, this.sync]) {
      s?.removeAllListeners();
      s?.on('error', () => undefined);
      s?.cancel();
    }
    this.health = undefined;
    this.sync = undefined;
    for (const p of this.acks.values()) p.reject(new Error(`lost the hub: ${err.message}`));
    this.acks.clear();
    if (wasUp) this.emit('down');
    clearTimeout(this.retry);
    const wait = Math.min(30_000, 500 * 2 ** this.attempt++) * (0.5 + Math.random() / 2);
    const why =
      'code' in err && err.code === grpc.status.UNAUTHENTICATED
        ? 'the hub refused the agent token'
        : 'code' in err && err.code === grpc.status.PERMISSION_DENIED
          ? 'the hub refused the license'
          : 'the hub is unreachable';
    this.opts.log.warn(`waiting for the hub at ${this.opts.address}: ${why} (${err.message}); retrying in ${Math.round(wait)} ms`);
    this.retry = setTimeout(() => this.open(), wait);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.beat);
    clearTimeout(this.answerTimer);
    clearTimeout(this.retry);
    for (const s of [this.health, this.sync]) {
      s?.removeAllListeners();
      s?.on('error', () => undefined);
      s?.end();
    }
    for (const p of this.acks.values()) p.reject(new Error('the agent is stopping'));
    this.acks.clear();
    this.client?.close();
  }
}
