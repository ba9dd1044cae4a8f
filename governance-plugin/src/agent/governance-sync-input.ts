/**
 * The `governance_sync` input: holds the agent's connection to the hub and, on each sync request,
 * lists every provider instance, one message per API in transactions of up to 100 (content: the
 * API normalised to the wire's fields, JSON; metadata: `sync_id`, `sync_run`, `provider_name`,
 * `provider_type`). A provider that fails is reported in the sync's completion and the others
 * still sync. Once every message of a sync was delivered (the `governance_hub` output has the
 * hub's ack for each), the input completes the sync with the hub. A sync cut off by a lost
 * connection is dropped here (its messages are acked without being sent) and run again from the
 * start once the agent is registered again, whether or not the hub asks for it. With
 * `sync_interval` the agent also syncs on its own: once it is first registered, then every
 * interval (a tick while a sync is unfinished or the hub is away is skipped).
 */
import { Message, type Logger } from '@svc/engine';
import { PushInput } from '@svc/engine/kit';
import type { Provider, ProviderResult } from '../wire/governance-wire.js';
import type { ApiProvider } from '../providers/provider.js';
import { registerConnection, unregisterConnection } from './connections.js';
import { HubConnection } from './hub-connection.js';

/** Transactions read ahead of the stream: providers wait beyond that (back-pressure). */
const QUEUE = 256;

export interface GovernanceSyncOptions {
  connection: string;
  hubAddress: string;
  token: string;
  license: string;
  heartbeatMs: number;
  agentVersion: string;
  providers: ApiProvider[];
  log: Logger;
  /** 0: only when the hub asks. */
  syncIntervalMs: number;
}

/** APIs per transaction. */
const BATCH = 100;

export class GovernanceSyncInput extends PushInput {
  /** Each API is acked on its own and the hub applies a sync whole at its end: order means nothing, so many go at once. */
  readonly concurrency = 256;
  private readonly hub: HubConnection;
  private readonly status = new Map<string, Provider>();
  private running: Promise<void> = Promise.resolve();
  private schedule: NodeJS.Timeout | undefined;

  constructor(private readonly opts: GovernanceSyncOptions) {
    super(QUEUE);
    for (const p of opts.providers) this.status.set(p.name, { name: p.name, type: p.type, status: 'UNKNOWN', error: '' });
    this.hub = new HubConnection({
      address: opts.hubAddress,
      token: opts.token,
      license: opts.license,
      agentVersion: opts.agentVersion,
      heartbeatMs: opts.heartbeatMs,
      providers: () => [...this.status.values()],
      log: opts.log,
    });
    this.hub.on('sync', (id: string, run: number) => {
      this.running = this.running.then(() => this.sync(id, run));
    });
    if (opts.syncIntervalMs > 0) {
      const every = opts.syncIntervalMs;
      this.hub.once('up', () => {
        this.scheduled();
        this.schedule = setInterval(() => this.scheduled(), every);
      });
    }
  }

  private scheduled(): void {
    if (this.hub.scheduledSync()) this.opts.log.info(`sync ${this.hub.currentSync}: scheduled (syncInterval ${this.opts.syncIntervalMs} ms)`);
  }

  /** True while both streams to the hub are up (the probe's readiness). */
  get up(): boolean {
    return this.hub.up;
  }

  async connect(): Promise<void> {
    registerConnection(this.opts.connection, this.hub);
    this.hub.start();
  }

  private async sync(id: string, run: number): Promise<void> {
    const current = () => this.hub.currentSync === id && this.hub.syncRun === run;
    if (!current()) return;
    const log = this.opts.log;
    log.info(`sync ${id}: listing ${this.opts.providers.length} provider(s)`);
    const results: ProviderResult[] = [];
    const delivered: Promise<void>[] = [];
    let total = 0;
    for (const provider of this.opts.providers) {
      if (this.closing || !current()) return;
      let count = 0;
      // APIs travel in transactions of up to BATCH: a provider with thousands is not thousands of round trips.
      let batch: Message[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        const out = batch;
        batch = [];
        let settle!: (err?: Error) => void;
        delivered.push(new Promise<void>((resolve, reject) => (settle = (err) => (err ? reject(err) : resolve()))));
        await this.push({ tx: { batch: out, ack: (err) => settle(err) } });
      };
      try {
        await provider.list(async (api) => {
          const msg = new Message(Buffer.from(JSON.stringify(api)));
          msg.setMeta('sync_id', id);
          msg.setMeta('provider_name', provider.name);
          msg.setMeta('provider_type', provider.type);
          msg.setMeta('sync_run', String(run));
          count++;
          batch.push(msg);
          if (batch.length >= BATCH) await flush();
        });
        await flush();
        this.status.set(provider.name, { name: provider.name, type: provider.type, status: 'UP', error: '' });
        results.push({ provider_name: provider.name, api_count: count, error: '' });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log.warn(`sync ${id}: provider ${provider.name} failed (the others still sync): ${message}`);
        this.status.set(provider.name, { name: provider.name, type: provider.type, status: 'DOWN', error: message });
        results.push({ provider_name: provider.name, api_count: count, error: message });
      }
      total += count;
    }
    try {
      await Promise.all(delivered);
      if (!current()) return;
      await this.hub.complete(id, total, results);
      log.info(`sync ${id}: ${total} API(s) synced to the hub; waiting for sync requests`);
    } catch (err) {
      log.warn(`sync ${id} did not complete (${err instanceof Error ? err.message : String(err)}): the hub asks again once the agent is back`);
    }
  }

  /** Closing (once the base ended the reads and woke the waiting providers): the hub and the providers go. */
  protected override onClose(): void {
    clearInterval(this.schedule);
    unregisterConnection(this.opts.connection, this.hub);
    this.hub.close();
    for (const p of this.opts.providers) p.close?.();
  }
}
