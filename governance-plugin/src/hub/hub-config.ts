/**
 * hub.yaml: where the hub listens and keeps its data.
 *
 *   http: { address: 127.0.0.1:8181 }            # REST API and web page
 *   grpc: { address: 127.0.0.1:50051, tls: { cert_file, key_file } }   # agents; TLS unless loopback
 *   storage: { embedded: { dir: ./hub-data } }   # or { postgres: { url: postgres://..., connect_timeout: 5s, statement_timeout: 10s } }
 *   agents: { heartbeat_interval: 5s, inactive_after_missed: 3, sync_max_bytes: 134217728, sync_idle_timeout: 5m }
 *
 * Every field has a default; a wrong one is an error with its file:line:col (the engine's
 * config-document loader).
 */
import { dirname, resolve } from 'node:path';
import { f, parseDuration } from '@svc/engine';
import { parseConfigDocument, readConfigDocument } from '@svc/engine/kit';

/** PostgreSQL, and how long the hub waits for it before answering 503. */
export interface PostgresStorage {
  kind: 'postgres';
  url: string;
  /** A new connection must be ready (or a pooled one free) within this. */
  connectTimeoutMs: number;
  /** A statement must be answered within this (PostgreSQL cancels it; the hub stops waiting). */
  statementTimeoutMs: number;
}

export interface HubConfig {
  httpAddress: string;
  grpcAddress: string;
  tls?: { certFile: string; keyFile: string };
  storage: { kind: 'embedded'; dir: string } | PostgresStorage;
  heartbeatIntervalMs: number;
  inactiveAfterMissed: number;
  /** The definitions an agent's unfinished sync may hold in memory, in bytes. */
  syncMaxBytes: number;
  /** An unfinished sync that received nothing for this long is dropped. */
  syncIdleTimeoutMs: number;
}

const nonEmpty = (s: string) => (s === '' ? 'expected a non-empty string' : undefined);
/** A string with a default; written, it must not be empty. */
const text = (fallback: string) => f.string().default(fallback).validate(nonEmpty);

const spec = f.object({
  http: f.object({ address: text('127.0.0.1:8181') }),
  grpc: f.object({ address: text('127.0.0.1:50051'), tls: f.object({ cert_file: text(''), key_file: text('') }) }),
  storage: f.object({
    embedded: f.object({ dir: text('./hub-data') }),
    postgres: f
      .object({
        url: text(''),
        connect_timeout: f.duration().default('5s').validate(nonEmpty),
        statement_timeout: f.duration().default('10s').validate(nonEmpty),
      })
      .optional(),
  }),
  agents: f.object({
    heartbeat_interval: f.duration().default('5s').validate(nonEmpty),
    inactive_after_missed: f
      .int()
      .default(3)
      .validate((n) => (n < 1 ? 'expected a whole number of at least 1' : undefined)),
    sync_max_bytes: f
      .int()
      .default(128 * 1024 * 1024)
      .validate((n) => (n < 1024 ? 'expected a whole number of bytes, at least 1024' : undefined)),
    sync_idle_timeout: f.duration().default('5m').validate(nonEmpty),
  }),
});

/**
 * Reads hub.yaml (no file: every default), with `${VAR}` and `${VAR:default}` replaced by
 * environment variables as in a pipeline config (a database URL from a Secret stays out of the
 * file); a problem is a ConfigError at its file:line:col.
 */
export async function loadHubConfig(file: string | undefined): Promise<HubConfig> {
  const base = file ? dirname(resolve(file)) : process.cwd();
  const doc = file ? await readConfigDocument(file, spec, { format: 'yaml', env: process.env }) : parseConfigDocument('{}', 'hub.yaml', spec);
  const c = doc.value;
  if (c !== undefined && doc.issues.length === 0) {
    if (parseDuration(c.agents.sync_idle_timeout) <= 0) doc.problem(['agents', 'sync_idle_timeout'], 'agents.sync_idle_timeout: must be above 0');
    for (const field of ['connect_timeout', 'statement_timeout'] as const)
      if (c.storage.postgres && parseDuration(c.storage.postgres[field]) <= 0)
        doc.problem(['storage', 'postgres', field], `storage.postgres.${field}: must be above 0`);
    if ((c.grpc.tls.cert_file === '') !== (c.grpc.tls.key_file === '')) doc.problem(['grpc', 'tls'], 'grpc.tls needs both cert_file and key_file');
  }
  const read = doc.result();
  const { cert_file: cert, key_file: key } = read.grpc.tls;
  const config: HubConfig = {
    httpAddress: read.http.address,
    grpcAddress: read.grpc.address,
    storage: read.storage.postgres
      ? {
          kind: 'postgres',
          url: read.storage.postgres.url,
          connectTimeoutMs: parseDuration(read.storage.postgres.connect_timeout),
          statementTimeoutMs: parseDuration(read.storage.postgres.statement_timeout),
        }
      : { kind: 'embedded', dir: resolve(base, read.storage.embedded.dir) },
    heartbeatIntervalMs: parseDuration(read.agents.heartbeat_interval),
    inactiveAfterMissed: read.agents.inactive_after_missed,
    syncMaxBytes: read.agents.sync_max_bytes,
    syncIdleTimeoutMs: parseDuration(read.agents.sync_idle_timeout),
  };
  if (cert !== '') config.tls = { certFile: resolve(base, cert), keyFile: resolve(base, key) };
  return config;
}
