-- The hub database as the hub before numbered migrations made it (main at ad2031a, 2026-11-27):
-- its schema statements verbatim and the rows it wrote (an agent with a token, the admin user
-- with an access key, the issuer key, two synced APIs), dumped from a PGlite database that hub
-- version created. hub-migrations.test.ts loads it into PGlite and PostgreSQL and opens it.
create table if not exists settings (key text primary key, value text not null);
create table if not exists agents (id uuid primary key, name text not null, created_at timestamptz not null default now(), last_heartbeat timestamptz, providers jsonb);
create table if not exists agent_tokens (token_hash text primary key, agent_id uuid not null references agents(id) on delete cascade, created_at timestamptz not null default now());
create table if not exists users (username text primary key, password_hash text not null, must_change boolean not null, created_at timestamptz not null default now());
create table if not exists access_keys (key_hash text primary key, username text not null references users(username) on delete cascade, name text not null, created_at timestamptz not null default now());
create table if not exists apis (agent_id uuid not null references agents(id) on delete cascade, provider_name text not null, api_id text not null, provider_type text not null, name text not null, kind text not null, version text not null, base_path text not null, definition text not null, updated_at timestamptz, synced_at timestamptz not null, primary key (agent_id, provider_name, api_id));
insert into settings (key, value) values ('license_issuer_key', 'fixture-issuer-key');
insert into agents (id, name, created_at, last_heartbeat, providers) values ('a0d4a6d9-7d0f-43f6-94e1-eb71d39896ae', 'legacy-agent', '2026-11-27T08:19:55.855Z', null, null);
insert into agent_tokens (token_hash, agent_id, created_at) values ('93617019acaabccf595dbb81a4b467ada69896a87262916f55ee34f93558c799', 'a0d4a6d9-7d0f-43f6-94e1-eb71d39896ae', '2026-11-27T08:19:55.857Z');
insert into users (username, password_hash, must_change, created_at) values ('admin', 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAA', true, '2026-11-27T08:19:55.860Z');
insert into access_keys (key_hash, username, name, created_at) values ('30b4eee5bfef7cc14b6833b38a45d123e35ebb8941008304a0ae9edda59f5aed', 'admin', 'legacy key', '2026-11-27T08:19:55.861Z');
insert into apis (agent_id, provider_name, api_id, provider_type, name, kind, version, base_path, definition, updated_at, synced_at) values ('a0d4a6d9-7d0f-43f6-94e1-eb71d39896ae', 'gw', 'payments', 'svc', 'payments API', 'classic', '', '/payments/', '{"api_id":"payments","proxy":{"listen_path":"/payments/","target_url":"http://user:pw@127.0.0.1:9/"}}', null, '2026-11-27T08:19:55.862Z');
insert into apis (agent_id, provider_name, api_id, provider_type, name, kind, version, base_path, definition, updated_at, synced_at) values ('a0d4a6d9-7d0f-43f6-94e1-eb71d39896ae', 'gw', 'policy:gold', 'svc', 'Gold tier', 'policy', '', '', '{"id":"gold","rate":100}', null, '2026-11-27T08:19:55.862Z');
