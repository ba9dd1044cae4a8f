/**
 * hub.yaml: where the hub listens and keeps its data.
 *
 *   http: { address: 127.0.0.1:8181 }            # REST API and web page
 *   grpc: { address: 127.0.0.1:50051, tls: { cert_file, key_file } }   # agents; TLS unless loopback
 *   storage: { embedded: { dir: ./hub-data } }   # or { postgres: { url: postgres://... } }
 *   agents: { heartbeat_interval: 5s, inactive_after_missed: 3, sync_max_bytes: 134217728, sync_idle_timeout: 5m }
 *
 * Every field has a default; a wrong one is an error with its file:line:col.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseDuration } from '@svc/engine';
import { LineCounter, parseDocument, isMap, type Node } from 'yaml';

export interface HubConfig {
  httpAddress: string;
  grpcAddress: string;
  tls?: { certFile: string; keyFile: string };
  storage: { kind: 'embedded'; dir: string } | { kind: 'postgres'; url: string };
  heartbeatIntervalMs: number;
  inactiveAfterMissed: number;
  /** The definitions an agent's unfinished sync may hold in memory, in bytes. */
  syncMaxBytes: number;
  /** An unfinished sync that received nothing for this long is dropped. */
  syncIdleTimeoutMs: number;
}

export class HubConfigError extends Error {}

export async function loadHubConfig(file: string | undefined): Promise<HubConfig> {
  const base = file ? dirname(resolve(file)) : process.cwd();
  const text = file ? await readFile(file, 'utf8') : '{}';
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const where = (node: Node | null | undefined) => {
    const at = node?.range ? lines.linePos(node.range[0]) : { line: 1, col: 1 };
    return `${file ?? 'hub.yaml'}:${at.line}:${at.col}`;
  };
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const at = lines.linePos(e.pos[0]);
    throw new HubConfigError(`${file}:${at.line}:${at.col}: ${e.message.split('\n')[0]}`);
  }
  const root = doc.contents;
  const get = (path: string[]): { value: unknown; node: Node | null } => {
    let node: unknown = root;
    for (const key of path) {
      if (!isMap(node)) return { value: undefined, node: null };
      node = node.get(key, true);
    }
    const n = (node ?? null) as Node | null;
    return { value: n && 'toJSON' in n ? (n as { toJSON(): unknown }).toJSON() : undefined, node: n };
  };
  const str = (path: string[], fallback: string): string => {
    const { value, node } = get(path);
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'string' || value === '') throw new HubConfigError(`${where(node)}: ${path.join('.')}: expected a non-empty string`);
    return value;
  };
  const known = (path: string[], keys: string[]) => {
    const { node } = path.length ? get(path) : { node: root as Node | null };
    if (node === null || node === undefined) return;
    if (!isMap(node)) throw new HubConfigError(`${where(node)}: ${path.join('.') || 'hub.yaml'}: expected a mapping`);
    for (const item of node.items) {
      const k = String((item.key as { value?: unknown }).value);
      if (!keys.includes(k))
        throw new HubConfigError(`${where(item.key as Node)}: unknown field "${[...path, k].join('.')}" (expected one of ${keys.join(', ')})`);
    }
  };
  known([], ['http', 'grpc', 'storage', 'agents']);
  known(['http'], ['address']);
  known(['grpc'], ['address', 'tls']);
  known(['grpc', 'tls'], ['cert_file', 'key_file']);
  known(['storage'], ['embedded', 'postgres']);
  known(['storage', 'embedded'], ['dir']);
  known(['storage', 'postgres'], ['url']);
  known(['agents'], ['heartbeat_interval', 'inactive_after_missed', 'sync_max_bytes', 'sync_idle_timeout']);

  const cert = str(['grpc', 'tls', 'cert_file'], '');
  const key = str(['grpc', 'tls', 'key_file'], '');
  const postgres = get(['storage', 'postgres']).value !== undefined;
  const interval = str(['agents', 'heartbeat_interval'], '5s');
  let heartbeatIntervalMs: number;
  try {
    heartbeatIntervalMs = parseDuration(interval);
  } catch {
    throw new HubConfigError(`${where(get(['agents', 'heartbeat_interval']).node)}: agents.heartbeat_interval: expected a duration such as 5s`);
  }
  const missed = get(['agents', 'inactive_after_missed']);
  const inactiveAfterMissed = missed.value === undefined ? 3 : Number(missed.value);
  if (!Number.isInteger(inactiveAfterMissed) || inactiveAfterMissed < 1)
    throw new HubConfigError(`${where(missed.node)}: agents.inactive_after_missed: expected a whole number of at least 1`);
  const maxBytes = get(['agents', 'sync_max_bytes']);
  const syncMaxBytes = maxBytes.value === undefined ? 128 * 1024 * 1024 : Number(maxBytes.value);
  if (!Number.isInteger(syncMaxBytes) || syncMaxBytes < 1024)
    throw new HubConfigError(`${where(maxBytes.node)}: agents.sync_max_bytes: expected a whole number of bytes, at least 1024`);
  const idle = str(['agents', 'sync_idle_timeout'], '5m');
  let syncIdleTimeoutMs: number;
  try {
    syncIdleTimeoutMs = parseDuration(idle);
  } catch {
    throw new HubConfigError(`${where(get(['agents', 'sync_idle_timeout']).node)}: agents.sync_idle_timeout: expected a duration such as 5m`);
  }
  if (syncIdleTimeoutMs <= 0) throw new HubConfigError(`${where(get(['agents', 'sync_idle_timeout']).node)}: agents.sync_idle_timeout: must be above 0`);
  const config: HubConfig = {
    httpAddress: str(['http', 'address'], '127.0.0.1:8181'),
    grpcAddress: str(['grpc', 'address'], '127.0.0.1:50051'),
    storage: postgres
      ? { kind: 'postgres', url: str(['storage', 'postgres', 'url'], '') }
      : { kind: 'embedded', dir: resolve(base, str(['storage', 'embedded', 'dir'], './hub-data')) },
    heartbeatIntervalMs,
    inactiveAfterMissed,
    syncMaxBytes,
    syncIdleTimeoutMs,
  };
  if ((cert === '') !== (key === '')) throw new HubConfigError(`${file ?? 'hub.yaml'}: grpc.tls needs both cert_file and key_file`);
  if (cert !== '') config.tls = { certFile: resolve(base, cert), keyFile: resolve(base, key) };
  return config;
}
