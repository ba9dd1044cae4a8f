/**
 * What the hub keeps, in SQL that PGlite and PostgreSQL both run (see sql.ts): agents and their
 * tokens (stored as SHA-256: a token is 32 random bytes, so a fast hash is safe and lets the hub
 * look one up), users (scrypt) and their access keys (SHA-256), the API repository, and the
 * hub's own settings (the license issuer key), the sync history and what each sync changed per
 * API. The schema is made by numbered migrations (migrations.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ApiRow, StoredApi } from '../wire/api-record.js';
import { definitionChanges, parsedDefinition, type FieldChange } from './definition-changes.js';
import { apiIdSql, migrate } from './migrations.js';
import type { Sql } from './sql.js';

export const ZERO_TIME = '0001-01-01T00:00:00Z';

export interface AgentRow {
  id: string;
  name: string;
  last_heartbeat: Date | null;
  providers: unknown;
}

/** APIs per insert statement when a sync is applied. */
const SYNC_CHUNK = 500;
/** Change records per insert statement (small rows). */
const CHANGES_CHUNK = 5000;

/** What the hub knows of a sync when it applies it: its id, who started it, when it began, the providers that failed. */
export interface SyncMeta {
  syncId: string;
  /** `resync`: asked for by the hub (POST /api/sync/); `schedule`: the agent's syncInterval. */
  trigger: string;
  startedAt: Date;
  errors: Array<{ provider: string; error: string }>;
}

export interface SyncOutcome {
  stored: number;
  added: number;
  changed: number;
  removed: number;
  historyId: string;
}

/** A row of the hub's sync history. */
export interface SyncHistoryRow {
  id: string;
  sync_id: string;
  agent_id: string;
  agent_name: string;
  trigger: string;
  status: 'complete' | 'failed';
  started_at: Date;
  finished_at: Date;
  api_count: number;
  added: number;
  changed: number;
  removed: number;
  errors: Array<{ provider: string; error: string }>;
}

/** What one sync changed of one API. */
export interface ApiChangeRow {
  history_id: string;
  sync_id: string;
  trigger: string;
  at: Date;
  change: 'added' | 'changed' | 'removed';
  fields: FieldChange[];
}

const keyOf = (provider: string, api: string) => `${provider}\u0000${api}`;
const md5 = (s: string) => createHash('md5').update(s).digest('hex');

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export class HubStore {
  constructor(readonly sql: Sql) {}

  /** Applies the migrations the database lacks (migrations.ts); replicas starting together take turns. */
  migrate(): Promise<{ from: number; to: number }> {
    return migrate(this.sql);
  }

  async setting(key: string): Promise<string | undefined> {
    return (await this.sql.query<{ value: string }>('select value from settings where key = $1', [key]))[0]?.value;
  }

  /** Sets `key` unless it is set already; returns the value that holds (a replica may have won). */
  async settingOnce(key: string, value: string): Promise<string> {
    await this.sql.query('insert into settings (key, value) values ($1, $2) on conflict (key) do nothing', [key, value]);
    return (await this.setting(key))!;
  }

  async createAgent(name: string): Promise<AgentRow> {
    const id = randomUUID();
    await this.sql.query('insert into agents (id, name) values ($1, $2)', [id, name]);
    return { id, name, last_heartbeat: null, providers: null };
  }

  async agent(id: string): Promise<AgentRow | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    return (await this.sql.query<AgentRow>('select id, name, last_heartbeat, providers from agents where id = $1', [id]))[0];
  }

  async agents(): Promise<AgentRow[]> {
    return this.sql.query<AgentRow>('select id, name, last_heartbeat, providers from agents order by created_at, id');
  }

  async deleteAgent(id: string): Promise<boolean> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return false;
    return (await this.sql.query('delete from agents where id = $1 returning id', [id])).length > 0;
  }

  async addToken(agentId: string, token: string): Promise<void> {
    await this.sql.query('insert into agent_tokens (token_hash, agent_id) values ($1, $2)', [sha256(token), agentId]);
  }

  /** The agent a token belongs to (undefined: unknown, or its agent was deleted). */
  async agentOfToken(token: string): Promise<AgentRow | undefined> {
    return (
      await this.sql.query<AgentRow>(
        'select a.id, a.name, a.last_heartbeat, a.providers from agent_tokens t join agents a on a.id = t.agent_id where t.token_hash = $1',
        [sha256(token)],
      )
    )[0];
  }

  async heartbeats(beats: Array<{ agentId: string; at: Date; providers: unknown }>): Promise<void> {
    if (beats.length === 0) return;
    await this.sql.transaction(async (tx) => {
      for (const b of beats)
        await tx.query('update agents set last_heartbeat = $2, providers = $3 where id = $1', [b.agentId, b.at.toISOString(), JSON.stringify(b.providers)]);
    });
  }

  /**
   * Applies one agent's sync in one transaction: for every provider that reported no error, its
   * APIs become the ones synced (added, changed, removed; an unchanged one is only marked seen);
   * a provider that failed keeps what it had. What changed is recorded per API (the paths of the
   * definition that differ) and the sync in the history. Rows go 500 to a statement (one JSON
   * parameter each), not one statement per API.
   */
  async applySync(agent: { id: string; name: string }, apis: StoredApi[], okProviders: string[], sync: SyncMeta): Promise<SyncOutcome> {
    const now = new Date().toISOString();
    const agentId = agent.id;
    // One row per (provider, API id), the last one sent winning: a statement may not touch a row twice.
    const rows = [...new Map(apis.filter((a) => okProviders.includes(a.provider_name)).map((a) => [keyOf(a.provider_name, a.api_id), a])).values()];
    return this.sql.transaction(async (tx) => {
      const before = new Map(
        (
          await tx.query<Omit<StoredApi, 'definition' | 'updated_at'> & { id: string; h: string }>(
            `select id, provider_name, api_id, provider_type, name, kind, version, base_path, md5(definition) as h from apis
             where agent_id = $1 and provider_name = any($2::text[])`,
            [agentId, okProviders],
          )
        ).map((r) => [keyOf(r.provider_name, r.api_id), r]),
      );
      const added: StoredApi[] = [];
      const changed: StoredApi[] = [];
      for (const a of rows) {
        const old = before.get(keyOf(a.provider_name, a.api_id));
        before.delete(keyOf(a.provider_name, a.api_id));
        if (old === undefined) added.push(a);
        else if (
          old.h !== md5(a.definition) ||
          old.name !== a.name ||
          old.kind !== a.kind ||
          old.version !== a.version ||
          old.base_path !== a.base_path ||
          old.provider_type !== a.provider_type
        )
          changed.push(a);
      }
      const removed = [...before.values()];
      const historyId = randomUUID();
      const changes: Array<{ provider_name: string; api_id: string; change: string; fields: FieldChange[] }> = [];
      for (let i = 0; i < changed.length; i += SYNC_CHUNK) {
        const chunk = changed.slice(i, i + SYNC_CHUNK);
        const old = await tx.query<{
          provider_name: string;
          api_id: string;
          definition: string;
          name: string;
          base_path: string;
          version: string;
          kind: string;
        }>(
          `select a.provider_name, a.api_id, a.definition, a.name, a.base_path, a.version, a.kind from apis a
           join jsonb_to_recordset($2::jsonb) as r(provider_name text, api_id text) on a.provider_name = r.provider_name and a.api_id = r.api_id
           where a.agent_id = $1`,
          [agentId, JSON.stringify(chunk.map((c) => ({ provider_name: c.provider_name, api_id: c.api_id })))],
        );
        const oldOf = new Map(old.map((o) => [keyOf(o.provider_name, o.api_id), o]));
        for (const c of chunk) {
          const o = oldOf.get(keyOf(c.provider_name, c.api_id));
          const fields: FieldChange[] = [];
          for (const f of ['name', 'kind', 'version', 'base_path'] as const) if (o && o[f] !== c[f]) fields.push({ path: `(${f})`, op: 'changed' });
          if (o && o.definition !== c.definition) fields.push(...definitionChanges(parsedDefinition(o.definition), parsedDefinition(c.definition)));
          changes.push({ provider_name: c.provider_name, api_id: c.api_id, change: 'changed', fields });
        }
      }
      for (const a of added) changes.push({ provider_name: a.provider_name, api_id: a.api_id, change: 'added', fields: [] });
      for (const r of removed) changes.push({ provider_name: r.provider_name, api_id: r.api_id, change: 'removed', fields: [] });

      for (let i = 0; i < removed.length; i += SYNC_CHUNK)
        await tx.query('delete from apis where agent_id = $1 and id = any($2::text[])', [agentId, removed.slice(i, i + SYNC_CHUNK).map((r) => r.id)]);
      const upserts = [...added, ...changed];
      for (let i = 0; i < upserts.length; i += SYNC_CHUNK) {
        const chunk = upserts.slice(i, i + SYNC_CHUNK).map((a) => ({ ...a, updated_at: a.updated_at?.toISOString() ?? null }));
        await tx.query(
          `insert into apis (id, agent_id, provider_name, api_id, provider_type, name, kind, version, base_path, definition, updated_at, synced_at)
           select ${apiIdSql('$1::uuid', 'r.provider_name', 'r.api_id')}, $1::uuid, r.provider_name, r.api_id, r.provider_type, r.name, r.kind, r.version,
             r.base_path, r.definition, r.updated_at, $3::timestamptz
           from json_to_recordset($2::json) as r(provider_name text, api_id text, provider_type text, name text, kind text, version text,
             base_path text, definition text, updated_at timestamptz)
           on conflict (agent_id, provider_name, api_id) do update set provider_type = excluded.provider_type, name = excluded.name,
             kind = excluded.kind, version = excluded.version, base_path = excluded.base_path, definition = excluded.definition,
             updated_at = excluded.updated_at, synced_at = excluded.synced_at`,
          [agentId, JSON.stringify(chunk), now],
        );
      }
      // The unchanged ones were seen by this sync too.
      if (rows.length > upserts.length)
        await tx.query('update apis set synced_at = $3 where agent_id = $1 and provider_name = any($2::text[]) and synced_at <> $3', [
          agentId,
          okProviders,
          now,
        ]);
      await tx.query(
        `insert into sync_history (id, sync_id, agent_id, agent_name, trigger, status, started_at, finished_at, api_count, added, changed, removed, errors)
         values ($1, $2, $3, $4, $5, 'complete', $6, $7, $8, $9, $10, $11, $12)`,
        [
          historyId,
          sync.syncId,
          agentId,
          agent.name,
          sync.trigger,
          sync.startedAt.toISOString(),
          now,
          rows.length,
          added.length,
          changed.length,
          removed.length,
          JSON.stringify(sync.errors),
        ],
      );
      for (let i = 0; i < changes.length; i += CHANGES_CHUNK)
        await tx.query(
          `insert into api_changes (api_key, history_id, agent_id, at, change, fields)
           select ${apiIdSql('$1::uuid', 'r.provider_name', 'r.api_id')}, $2::uuid, $1::uuid, $3::timestamptz, r.change, r.fields
           from jsonb_to_recordset($4::jsonb) as r(provider_name text, api_id text, change text, fields jsonb)`,
          [agentId, historyId, now, JSON.stringify(changes.slice(i, i + CHANGES_CHUNK))],
        );
      return { stored: rows.length, added: added.length, changed: changed.length, removed: removed.length, historyId };
    });
  }

  /** Records a sync that failed (the agent said so, it was dropped, or it could not be stored): nothing of it was applied. */
  async syncFailed(agent: { id: string; name: string }, sync: SyncMeta, error: string): Promise<void> {
    await this.sql.query(
      `insert into sync_history (id, sync_id, agent_id, agent_name, trigger, status, started_at, finished_at, api_count, added, changed, removed, errors)
       values ($1, $2, $3, $4, $5, 'failed', $6, now(), 0, 0, 0, 0, $7)`,
      [randomUUID(), sync.syncId, agent.id, agent.name, sync.trigger, sync.startedAt.toISOString(), JSON.stringify([...sync.errors, { provider: '', error }])],
    );
  }

  /** The sync history, newest first. */
  async syncHistory(filter: { agentId?: string; limit: number; offset: number }): Promise<SyncHistoryRow[]> {
    const params: unknown[] = [];
    let where = '';
    if (filter.agentId) {
      params.push(filter.agentId);
      where = `where agent_id::text = $1`;
    }
    params.push(filter.limit, filter.offset);
    return this.sql.query<SyncHistoryRow>(
      `select id, sync_id, agent_id, agent_name, trigger, status, started_at, finished_at, api_count, added, changed, removed, errors
       from sync_history ${where} order by finished_at desc, id limit $${params.length - 1} offset $${params.length}`,
      params,
    );
  }

  /** One API by its id, with its definition. */
  async api(id: string): Promise<(ApiRow & { id: string }) | undefined> {
    if (!/^[0-9a-f]{32}$/.test(id)) return undefined;
    return (
      await this.sql.query<ApiRow & { id: string }>(
        `select id, agent_id, provider_name, provider_type, api_id, name, kind, version, base_path, definition, updated_at, synced_at from apis where id = $1`,
        [id],
      )
    )[0];
  }

  /** What the syncs changed of the API with this id, newest first. */
  async apiChanges(id: string, limit: number): Promise<ApiChangeRow[]> {
    return this.sql.query<ApiChangeRow>(
      `select c.history_id, c.at, c.change, c.fields, h.sync_id, h.trigger from api_changes c join sync_history h on h.id = c.history_id
       where c.api_key = $1 order by c.at desc limit $2`,
      [id, limit],
    );
  }

  async apis(filter: { q?: string; provider?: string; agentId?: string; limit: number; offset: number }): Promise<ApiRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.q) {
      params.push(`%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`(name ilike $${params.length} or api_id ilike $${params.length} or base_path ilike $${params.length})`);
    }
    if (filter.provider) {
      params.push(filter.provider);
      where.push(`(provider_type = $${params.length} or provider_name = $${params.length})`);
    }
    if (filter.agentId) {
      params.push(filter.agentId);
      where.push(`agent_id::text = $${params.length}`);
    }
    params.push(filter.limit, filter.offset);
    return this.sql.query<ApiRow>(
      `select id, agent_id, provider_name, provider_type, api_id, name, kind, version, base_path, updated_at, synced_at from apis
       ${where.length ? `where ${where.join(' and ')}` : ''} order by name, agent_id, provider_name, api_id limit $${params.length - 1} offset $${params.length}`,
      params,
    );
  }

  async user(username: string): Promise<{ username: string; password_hash: string; must_change: boolean } | undefined> {
    return (
      await this.sql.query<{ username: string; password_hash: string; must_change: boolean }>(
        'select username, password_hash, must_change from users where username = $1',
        [username],
      )
    )[0];
  }

  /** Creates the user unless one exists; true when this call created it. */
  async createUserOnce(username: string, passwordHash: string): Promise<boolean> {
    return (
      (
        await this.sql.query('insert into users (username, password_hash, must_change) values ($1, $2, true) on conflict do nothing returning username', [
          username,
          passwordHash,
        ])
      ).length > 0
    );
  }

  async setPassword(username: string, passwordHash: string): Promise<void> {
    await this.sql.query('update users set password_hash = $2, must_change = false where username = $1', [username, passwordHash]);
  }

  async addAccessKey(username: string, key: string, name: string): Promise<void> {
    await this.sql.query('insert into access_keys (key_hash, username, name) values ($1, $2, $3)', [sha256(key), username, name]);
  }

  async accessKeys(username: string): Promise<Array<{ id: string; name: string; created_at: Date }>> {
    return this.sql.query('select substr(key_hash, 1, 16) as id, name, created_at from access_keys where username = $1 order by created_at', [username]);
  }

  async revokeAccessKey(username: string, id: string): Promise<boolean> {
    return (await this.sql.query('delete from access_keys where username = $1 and substr(key_hash, 1, 16) = $2 returning name', [username, id])).length > 0;
  }

  /** The user an access key belongs to, if it is a live key of a user who changed the first password. */
  async userOfAccessKey(key: string): Promise<string | undefined> {
    return (
      await this.sql.query<{ username: string }>(
        'select u.username from access_keys k join users u on u.username = k.username where k.key_hash = $1 and not u.must_change',
        [sha256(key)],
      )
    )[0]?.username;
  }
}
