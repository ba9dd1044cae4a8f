/**
 * The hub's side of the gRPC wire (proto/governance.proto): every call is authenticated by the
 * agent's token (unknown or deleted: UNAUTHENTICATED) and its license, which must have been
 * issued by this hub (else PERMISSION_DENIED). Heartbeats mark the agent alive (written in
 * batches, once a second, not once per beat); a sync's APIs are held as they arrive and applied
 * in one transaction when its SyncComplete arrives, so a sync cut off half-way changes nothing,
 * and is asked for again when the agent comes back.
 */
import { randomUUID } from 'node:crypto';
import { grpc, LICENSE, AUTHORIZATION, type AgentMessage, type Heartbeat, type HeartbeatAck, type HubMessage } from '../wire/governance-wire.js';
import { verifyLicense } from '../license/license.js';
import type { HubStore, StoredApi } from './hub-store.js';
import type { Logger } from '@svc/engine';

type SyncCall = grpc.ServerDuplexStream<AgentMessage, HubMessage>;
type HealthCall = grpc.ServerDuplexStream<Heartbeat, HeartbeatAck>;

interface Connected {
  agentId: string;
  name: string;
  sync?: SyncCall;
  health?: HealthCall;
  /** APIs received per sync id, not applied yet. */
  staged: Map<string, StoredApi[]>;
}

/** A ReSync and how each agent answered it. */
interface SyncProgress {
  id: string;
  requested_at: string;
  agents: Record<string, { name: string; state: 'requested' | 'receiving' | 'complete' | 'failed'; apis: number; error?: string }>;
}

/** Calls' status for a refused agent. */
function refuse(call: { emit(e: 'error', err: unknown): void }, code: grpc.status, details: string): void {
  call.emit('error', { code, details, metadata: new grpc.Metadata() });
}

export class AgentStreams {
  private readonly connected = new Map<string, Connected>();
  private readonly beats = new Map<string, { agentId: string; at: Date; providers: unknown }>();
  private readonly syncs = new Map<string, SyncProgress>();
  /** Syncs asked of an agent that did not complete: asked again when it reconnects. */
  private readonly owed = new Map<string, string>();
  private readonly flusher: NodeJS.Timeout;

  constructor(
    private readonly store: HubStore,
    private readonly issuer: string,
    private readonly log: Logger,
    private readonly heartbeatIntervalMs: number,
  ) {
    this.flusher = setInterval(() => void this.flush(), 1000);
    this.flusher.unref();
  }

  /** The service implementation for grpc-js. */
  handlers(): grpc.UntypedServiceImplementation {
    return {
      Health: (call: HealthCall) => void this.health(call),
      Sync: (call: SyncCall) => void this.sync(call),
    };
  }

  private async authenticate(call: SyncCall | HealthCall): Promise<{ id: string; name: string } | undefined> {
    const auth = String(call.metadata.get(AUTHORIZATION)[0] ?? '');
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
    const agent = token === '' ? undefined : await this.store.agentOfToken(token).catch(() => undefined);
    if (agent === undefined) {
      refuse(call, grpc.status.UNAUTHENTICATED, 'the agent token is unknown or its agent was deleted: create a token with POST /api/auth/token/');
      return undefined;
    }
    try {
      const license = verifyLicense(String(call.metadata.get(LICENSE)[0] ?? ''));
      if (license.iss !== this.issuer) throw new Error('the license was not issued by this hub: get one with `engine hub license`');
    } catch (err) {
      refuse(call, grpc.status.PERMISSION_DENIED, err instanceof Error ? err.message : String(err));
      return undefined;
    }
    return { id: agent.id, name: agent.name };
  }

  private entry(agent: { id: string; name: string }): Connected {
    let c = this.connected.get(agent.id);
    if (c === undefined) {
      c = { agentId: agent.id, name: agent.name, staged: new Map() };
      this.connected.set(agent.id, c);
    }
    return c;
  }

  private async health(call: HealthCall): Promise<void> {
    const agent = await this.authenticate(call);
    if (agent === undefined) return;
    const c = this.entry(agent);
    c.health?.end();
    c.health = call;
    call.on('data', (b: Heartbeat) => {
      this.beats.set(agent.id, { agentId: agent.id, at: new Date(), providers: b.providers ?? [] });
      call.write({ received_at_unix_ms: Date.now() });
    });
    const gone = () => {
      if (c.health === call) c.health = undefined;
    };
    call.on('end', () => {
      gone();
      call.end();
    });
    call.on('error', gone);
    call.on('cancelled', gone);
  }

  private async sync(call: SyncCall): Promise<void> {
    const agent = await this.authenticate(call);
    if (agent === undefined) return;
    const c = this.entry(agent);
    call.on('data', (m: AgentMessage) => void this.onAgentMessage(c, call, m));
    const gone = () => {
      if (c.sync !== call) return;
      c.sync = undefined;
      c.staged.clear();
      this.log.info(`agent ${agent.name} (${agent.id}): sync stream closed`);
    };
    call.on('end', () => {
      gone();
      call.end();
    });
    call.on('error', gone);
    call.on('cancelled', gone);
  }

  private async onAgentMessage(c: Connected, call: SyncCall, m: AgentMessage): Promise<void> {
    if (m.register) {
      c.sync?.end();
      c.sync = call;
      call.write({ registered: { agent_id: c.agentId, agent_name: c.name, heartbeat_interval_ms: this.heartbeatIntervalMs } });
      this.log.info(`agent ${c.name} (${c.agentId}) registered`);
      const owed = this.owed.get(c.agentId);
      if (owed !== undefined) call.write({ sync_request: { sync_id: owed } });
      return;
    }
    if (c.sync !== call) return;
    if (m.api) {
      const a = m.api;
      let staged = c.staged.get(a.sync_id);
      if (staged === undefined) c.staged.set(a.sync_id, (staged = []));
      staged.push({
        provider_name: a.provider_name,
        provider_type: a.provider_type,
        api_id: a.api_id,
        name: a.name,
        kind: a.kind,
        version: a.version,
        base_path: a.base_path,
        definition: a.definition_json,
        updated_at: Number(a.updated_at_unix_ms) > 0 ? new Date(Number(a.updated_at_unix_ms)) : null,
      });
      this.progress(a.sync_id, c, 'receiving', staged.length);
      call.write({ api_ack: { sync_id: a.sync_id, provider_name: a.provider_name, api_id: a.api_id } });
      return;
    }
    if (m.complete) {
      const { sync_id, providers } = m.complete;
      const staged = c.staged.get(sync_id) ?? [];
      c.staged.delete(sync_id);
      const ok = (providers ?? []).filter((p) => !p.error).map((p) => p.provider_name);
      try {
        const started = Date.now();
        const stored = await this.store.applySync(c.agentId, staged, ok);
        this.owed.delete(c.agentId);
        this.progress(sync_id, c, 'complete', stored);
        call.write({ sync_ack: { sync_id, stored } });
        const failed = (providers ?? []).filter((p) => p.error);
        this.log.info(
          `agent ${c.name}: sync ${sync_id} applied, ${stored} API(s) in ${Date.now() - started} ms${failed.length ? `; ${failed.map((p) => `${p.provider_name} failed: ${p.error}`).join('; ')}` : ''}`,
        );
      } catch (err) {
        this.progress(sync_id, c, 'failed', 0, err instanceof Error ? err.message : String(err));
        this.log.error(`agent ${c.name}: sync ${sync_id} could not be stored: ${err instanceof Error ? err.message : String(err)}`);
      }
      return;
    }
    if (m.failed) {
      c.staged.delete(m.failed.sync_id);
      this.progress(m.failed.sync_id, c, 'failed', 0, m.failed.error);
    }
  }

  private progress(syncId: string, c: Connected, state: SyncProgress['agents'][string]['state'], apis: number, error?: string): void {
    const p = this.syncs.get(syncId);
    if (p === undefined) return;
    p.agents[c.agentId] = { name: c.name, state, apis, ...(error ? { error } : {}) };
  }

  /** Asks every agent with a sync stream to sync now. */
  resync(): { id: string; agents: number } {
    const id = randomUUID();
    const p: SyncProgress = { id, requested_at: new Date().toISOString(), agents: {} };
    this.syncs.set(id, p);
    if (this.syncs.size > 100) this.syncs.delete(this.syncs.keys().next().value as string);
    let asked = 0;
    for (const c of this.connected.values()) {
      this.owed.set(c.agentId, id);
      if (c.sync === undefined) continue;
      c.sync.write({ sync_request: { sync_id: id } });
      p.agents[c.agentId] = { name: c.name, state: 'requested', apis: 0 };
      asked++;
    }
    return { id, agents: asked };
  }

  syncProgress(id: string): SyncProgress | undefined {
    return this.syncs.get(id);
  }

  /** A deleted agent: its streams end now. */
  disconnect(agentId: string): void {
    const c = this.connected.get(agentId);
    if (c === undefined) return;
    this.connected.delete(agentId);
    for (const call of [c.sync, c.health]) if (call) refuse(call, grpc.status.UNAUTHENTICATED, 'the agent was deleted');
  }

  private async flush(): Promise<void> {
    if (this.beats.size === 0) return;
    const beats = [...this.beats.values()];
    this.beats.clear();
    await this.store.heartbeats(beats).catch((err: unknown) => this.log.warn(`heartbeats not written: ${err instanceof Error ? err.message : String(err)}`));
  }

  async close(): Promise<void> {
    clearInterval(this.flusher);
    await this.flush();
    for (const c of this.connected.values()) {
      c.sync?.end();
      c.health?.end();
    }
    this.connected.clear();
  }
}
