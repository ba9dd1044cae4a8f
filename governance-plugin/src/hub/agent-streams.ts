/**
 * The hub's side of the gRPC wire (proto/governance.proto): every call is authenticated by the
 * agent's token (unknown or deleted: UNAUTHENTICATED) and its license, which must have been
 * issued by this hub (else PERMISSION_DENIED). Heartbeats mark the agent alive (written in
 * batches, once a second, not once per beat); a sync's APIs are held as they arrive and applied
 * in one transaction when its SyncComplete arrives, so a sync cut off half-way changes nothing,
 * and is asked for again when the agent comes back. What is held is bounded: at most
 * `agents.sync_max_bytes` of definitions per agent and two unfinished syncs (a third drops the
 * oldest), and a sync that received nothing for `agents.sync_idle_timeout` is dropped; a dropped
 * sync is marked failed, its SyncComplete is refused (never applied as if it were empty), and the
 * stream it came on ends (RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED), so the agent stops waiting for
 * acks, reconnects and is asked again.
 * A database error is logged and answered UNAVAILABLE, so the agent retries; it is never
 * mistaken for a refused token. A sync the database could not store ends its stream the same way
 * (the agent reconnects and runs it again). Every sync applied or failed goes to the history.
 */
import { randomUUID } from 'node:crypto';
import { grpc, LICENSE, AUTHORIZATION, type AgentMessage, type Heartbeat, type HeartbeatAck, type HubMessage } from '../wire/governance-wire.js';
import { verifyLicense } from '../license/license.js';
import { storedApi, type StoredApi } from '../wire/api-record.js';
import type { HubStore, SyncMeta } from './hub-store.js';
import { errorMessage, type Logger } from '@svc/engine';

type SyncCall = grpc.ServerDuplexStream<AgentMessage, HubMessage>;
type HealthCall = grpc.ServerDuplexStream<Heartbeat, HeartbeatAck>;

interface Connected {
  agentId: string;
  name: string;
  sync?: SyncCall;
  health?: HealthCall;
  /** APIs received per sync id, not applied yet. */
  staged: Map<string, Staging>;
  /** Syncs dropped unfinished (too large, idle, superseded): their SyncComplete is refused. */
  dropped: Set<string>;
}

interface Staging {
  apis: StoredApi[];
  bytes: number;
  /** When its first API arrived. */
  startedAt: Date;
  /** When its last API arrived (epoch ms). */
  lastAt: number;
}

/** What the hub holds of unfinished syncs. */
export interface StagingLimits {
  maxBytes: number;
  idleMs: number;
}

/** Unfinished syncs one agent may have staged at once. */
const MAX_STAGED_SYNCS = 2;
/** Dropped sync ids remembered per agent (to refuse their SyncComplete). */
const MAX_DROPPED = 16;

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
    private readonly limits: StagingLimits,
  ) {
    this.flusher = setInterval(() => {
      this.dropIdle();
      void this.flush();
    }, 1000);
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
    let agent: { id: string; name: string } | undefined;
    try {
      agent = token === '' ? undefined : await this.store.agentOfToken(token);
    } catch (err) {
      // Not the agent's fault: it must retry, not be told its token is wrong.
      this.log.error(`cannot check an agent's token: the database failed: ${errorMessage(err)}`);
      refuse(call, grpc.status.UNAVAILABLE, 'the hub cannot reach its database: retry later');
      return undefined;
    }
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
      c = { agentId: agent.id, name: agent.name, staged: new Map(), dropped: new Set() };
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
      if (owed !== undefined) {
        // Asked anew: a drop of its earlier attempt no longer refuses it.
        c.dropped.delete(owed);
        call.write({ sync_request: { sync_id: owed } });
      }
      return;
    }
    if (c.sync !== call) return;
    if (m.api) {
      const a = m.api;
      if (c.dropped.has(a.sync_id)) {
        // Acked so the agent gets to its SyncComplete (refused) instead of waiting.
        call.write({ api_ack: { sync_id: a.sync_id, provider_name: a.provider_name, api_id: a.api_id } });
        return;
      }
      let staged = c.staged.get(a.sync_id);
      if (staged === undefined) {
        for (const [id] of c.staged) if (c.staged.size >= MAX_STAGED_SYNCS) this.drop(c, id, 'a newer sync of this agent started');
        c.staged.set(a.sync_id, (staged = { apis: [], bytes: 0, lastAt: Date.now(), startedAt: new Date() }));
      }
      staged.lastAt = Date.now();
      staged.bytes += a.definition_json.length + a.name.length + a.api_id.length + a.base_path.length + a.provider_name.length + 64;
      let held = 0;
      for (const st of c.staged.values()) held += st.bytes;
      if (held > this.limits.maxBytes) {
        this.drop(c, a.sync_id, `the agent's unfinished syncs hold more than agents.sync_max_bytes (${this.limits.maxBytes} bytes) of definitions`);
        // Its stream ends, so the agent stops waiting for acks and comes back (and is asked again).
        refuse(
          call,
          grpc.status.RESOURCE_EXHAUSTED,
          `sync ${a.sync_id} dropped: more than ${this.limits.maxBytes} bytes of definitions (the hub's agents.sync_max_bytes)`,
        );
        return;
      }
      staged.apis.push(storedApi(a));
      this.progress(a.sync_id, c, 'receiving', staged.apis.length);
      call.write({ api_ack: { sync_id: a.sync_id, provider_name: a.provider_name, api_id: a.api_id } });
      return;
    }
    if (m.complete) {
      const { sync_id, providers } = m.complete;
      const trigger = m.complete.trigger || 'resync';
      if (c.dropped.has(sync_id)) {
        this.log.warn(`agent ${c.name}: sync ${sync_id} completed after it was dropped: not applied (it is asked for again)`);
        return;
      }
      const staging = c.staged.get(sync_id);
      c.staged.delete(sync_id);
      const ok = (providers ?? []).filter((p) => !p.error).map((p) => p.provider_name);
      const failed = (providers ?? []).filter((p) => p.error);
      const meta: SyncMeta = {
        syncId: sync_id,
        trigger,
        startedAt: staging?.startedAt ?? new Date(),
        errors: failed.map((p) => ({ provider: p.provider_name, error: p.error })),
      };
      const agent = { id: c.agentId, name: c.name };
      try {
        const started = Date.now();
        const out = await this.store.applySync(agent, staging?.apis ?? [], ok, meta);
        if (trigger === 'resync') this.owed.delete(c.agentId);
        this.progress(sync_id, c, 'complete', out.stored);
        call.write({ sync_ack: { sync_id, stored: out.stored } });
        this.log.info(
          `agent ${c.name}: sync ${sync_id} (${trigger}) applied, ${out.stored} API(s) (${out.added} added, ${out.changed} changed, ${out.removed} removed) in ${Date.now() - started} ms${failed.length ? `; ${failed.map((p) => `${p.provider_name} failed: ${p.error}`).join('; ')}` : ''}`,
        );
      } catch (err) {
        this.progress(sync_id, c, 'failed', 0, errorMessage(err));
        this.log.error(`agent ${c.name}: sync ${sync_id} could not be stored: ${errorMessage(err)}`);
        this.recordFailure(agent, meta, `the hub could not store the sync: ${errorMessage(err)}`);
        // The agent would wait for this sync's ack for ever (and run no other, scheduled ones
        // included): its stream ends, it reconnects and runs the sync again.
        refuse(call, grpc.status.UNAVAILABLE, `sync ${sync_id} could not be stored (the hub's database failed): it runs again once the agent reconnects`);
      }
      return;
    }
    if (m.failed) {
      const staging = c.staged.get(m.failed.sync_id);
      c.staged.delete(m.failed.sync_id);
      this.progress(m.failed.sync_id, c, 'failed', 0, m.failed.error);
      this.recordFailure(
        { id: c.agentId, name: c.name },
        { syncId: m.failed.sync_id, trigger: m.failed.trigger || 'resync', startedAt: staging?.startedAt ?? new Date(), errors: [] },
        m.failed.error,
      );
    }
  }

  /** A failed sync goes to the history; a database that cannot take it is logged, not fatal. */
  private recordFailure(agent: { id: string; name: string }, meta: SyncMeta, error: string): void {
    this.store.syncFailed(agent, meta, error).catch((err: unknown) => this.log.warn(`sync ${meta.syncId}: its failure was not recorded: ${errorMessage(err)}`));
  }

  /** Drops an unfinished sync: its APIs are let go, it is marked failed, and it stays owed. */
  private drop(c: Connected, syncId: string, why: string): void {
    const staging = c.staged.get(syncId);
    c.staged.delete(syncId);
    this.recordFailure(
      { id: c.agentId, name: c.name },
      { syncId, trigger: this.syncs.has(syncId) ? 'resync' : 'schedule', startedAt: staging?.startedAt ?? new Date(), errors: [] },
      `dropped unfinished: ${why}`,
    );
    c.dropped.add(syncId);
    if (c.dropped.size > MAX_DROPPED) c.dropped.delete(c.dropped.values().next().value as string);
    this.progress(syncId, c, 'failed', 0, `dropped unfinished: ${why}`);
    this.log.warn(`agent ${c.name} (${c.agentId}): sync ${syncId} dropped unfinished: ${why}`);
  }

  /** Drops every unfinished sync that received nothing for `idleMs`; the stream of a stalled agent ends (it reconnects). */
  private dropIdle(now = Date.now()): void {
    for (const c of this.connected.values())
      for (const [id, st] of c.staged) {
        if (now - st.lastAt <= this.limits.idleMs) continue;
        this.drop(c, id, `nothing arrived for ${Math.round(this.limits.idleMs / 1000)} s (agents.sync_idle_timeout)`);
        if (c.sync) refuse(c.sync, grpc.status.DEADLINE_EXCEEDED, `sync ${id} dropped: nothing arrived for ${Math.round(this.limits.idleMs / 1000)} s`);
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
