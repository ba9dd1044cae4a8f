/**
 * What the hub keeps, in SQL that PGlite and PostgreSQL both run (see sql.ts): agents and their
 * tokens (stored as SHA-256: a token is 32 random bytes, so a fast hash is safe and lets the hub
 * look one up), users (scrypt) and their access keys (SHA-256), the API repository, and the
 * hub's own settings (the license issuer key). Schema changes are additive (`if not exists`).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ApiRow, StoredApi } from '../wire/api-record.js';
import type { Sql } from './sql.js';

const SCHEMA = [
  `create table if not exists settings (key text primary key, value text not null)`,
  `create table if not exists agents (id uuid primary key, name text not null, created_at timestamptz not null default now(),
     last_heartbeat timestamptz, providers jsonb)`,
  `create table if not exists agent_tokens (token_hash text primary key, agent_id uuid not null references agents(id) on delete cascade,
     created_at timestamptz not null default now())`,
  `create table if not exists users (username text primary key, password_hash text not null, must_change boolean not null,
     created_at timestamptz not null default now())`,
  `create table if not exists access_keys (key_hash text primary key, username text not null references users(username) on delete cascade,
     name text not null, created_at timestamptz not null default now())`,
  `create table if not exists apis (agent_id uuid not null references agents(id) on delete cascade, provider_name text not null,
     api_id text not null, provider_type text not null, name text not null, kind text not null, version text not null,
     base_path text not null, definition text not null, updated_at timestamptz, synced_at timestamptz not null,
     primary key (agent_id, provider_name, api_id))`,
];

export const ZERO_TIME = '0001-01-01T00:00:00Z';

export interface AgentRow {
  id: string;
  name: string;
  last_heartbeat: Date | null;
  providers: unknown;
}

/** APIs per insert statement when a sync is applied. */
const SYNC_CHUNK = 500;

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export class HubStore {
  constructor(readonly sql: Sql) {}

  /** Creates what is missing; replicas starting together take turns (an advisory lock). */
  async migrate(): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await tx.query('select pg_advisory_xact_lock(7310001)');
      for (const statement of SCHEMA) await tx.query(statement);
    });
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
   * APIs are replaced by the ones synced; a provider that failed keeps what it had. Rows go in
   * 500 to a statement (one JSON parameter each), not one statement per API.
   */
  async applySync(agentId: string, apis: StoredApi[], okProviders: string[]): Promise<number> {
    const now = new Date().toISOString();
    // One row per (provider, API id), the last one sent winning: a statement may not touch a row twice.
    const rows = [...new Map(apis.filter((a) => okProviders.includes(a.provider_name)).map((a) => [`${a.provider_name}\u0000${a.api_id}`, a])).values()];
    return this.sql.transaction(async (tx) => {
      for (const p of okProviders) await tx.query('delete from apis where agent_id = $1 and provider_name = $2', [agentId, p]);
      for (let i = 0; i < rows.length; i += SYNC_CHUNK) {
        const chunk = rows.slice(i, i + SYNC_CHUNK).map((a) => ({ ...a, updated_at: a.updated_at?.toISOString() ?? null }));
        await tx.query(
          `insert into apis (agent_id, provider_name, api_id, provider_type, name, kind, version, base_path, definition, updated_at, synced_at)
           select $1::uuid, r.provider_name, r.api_id, r.provider_type, r.name, r.kind, r.version, r.base_path, r.definition, r.updated_at, $3::timestamptz
           from jsonb_to_recordset($2::jsonb) as r(provider_name text, api_id text, provider_type text, name text, kind text, version text,
             base_path text, definition text, updated_at timestamptz)
           on conflict (agent_id, provider_name, api_id) do update set provider_type = excluded.provider_type, name = excluded.name,
             kind = excluded.kind, version = excluded.version, base_path = excluded.base_path, definition = excluded.definition,
             updated_at = excluded.updated_at, synced_at = excluded.synced_at`,
          [agentId, JSON.stringify(chunk), now],
        );
      }
      return rows.length;
    });
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
      `select agent_id, provider_name, provider_type, api_id, name, kind, version, base_path, definition, updated_at, synced_at from apis
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
