/**
 * The hub's schema as numbered migrations, run in order at start on PGlite and PostgreSQL alike.
 * `schema_migrations` records each one applied; they run in one transaction under an advisory
 * lock, so replicas starting together take turns and a failed migration changes nothing.
 * Migration 1 is the schema of the hub before migrations were numbered, written with
 * `if not exists`: a database that hub made takes it as a no-op and goes on from there. A
 * database migrated by a newer hub is refused (this hub would not know its tables).
 * A migration, once released, is never edited: a change is a new number.
 */
import type { Sql } from './sql.js';

interface Migration {
  version: number;
  name: string;
  statements: string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'settings, agents and their tokens, users and their access keys, the API repository',
    statements: [
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
    ],
  },
  {
    version: 2,
    name: 'an id per API, the sync history, and what each sync changed per API',
    statements: [
      // The id names an API across syncs (GET /api/apis/{id}/): made from its key, so an API removed and seen again keeps it.
      `alter table apis add column id text`,
      `update apis set id = ${apiIdSql('agent_id', 'provider_name', 'api_id')}`,
      `alter table apis alter column id set not null`,
      `create unique index apis_id on apis (id)`,
      // Kept when its agent is deleted: the history says what happened, by the agent's name then.
      `create table sync_history (id uuid primary key, sync_id text not null, agent_id uuid not null, agent_name text not null,
         trigger text not null, status text not null, started_at timestamptz not null, finished_at timestamptz not null,
         api_count integer not null, added integer not null, changed integer not null, removed integer not null,
         errors jsonb not null)`,
      `create index sync_history_finished on sync_history (finished_at desc)`,
      `create table api_changes (api_key text not null, history_id uuid not null, agent_id uuid not null references agents(id) on delete cascade,
         at timestamptz not null, change text not null, fields jsonb not null, primary key (api_key, history_id))`,
      `create index api_changes_at on api_changes (api_key, at desc)`,
    ],
  },
];

/** The SQL expression of an API's id from its agent, provider and API id columns (lengths keep `a/b`+`c` apart from `a`+`b/c`). */
export function apiIdSql(agent: string, provider: string, api: string): string {
  return `md5(${agent}::text || ':' || length(${provider}) || ':' || ${provider} || ':' || ${api})`;
}

export class SchemaTooNewError extends Error {}

/** Applies the migrations this database lacks; what it was at and is at now. */
export async function migrate(sql: Sql): Promise<{ from: number; to: number }> {
  return sql.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock(7310001)');
    await tx.query(
      'create table if not exists schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())',
    );
    const from = (await tx.query<{ v: number | null }>('select max(version) as v from schema_migrations'))[0]?.v ?? 0;
    const latest = MIGRATIONS[MIGRATIONS.length - 1]!.version;
    if (from > latest)
      throw new SchemaTooNewError(
        `the hub database is at schema version ${from}, made by a newer hub; this hub knows versions up to ${latest}: run the newer hub (a database is never migrated down)`,
      );
    for (const m of MIGRATIONS) {
      if (m.version <= from) continue;
      for (const statement of m.statements) await tx.query(statement);
      await tx.query('insert into schema_migrations (version, name) values ($1, $2)', [m.version, m.name]);
    }
    return { from, to: Math.max(from, latest) };
  });
}
