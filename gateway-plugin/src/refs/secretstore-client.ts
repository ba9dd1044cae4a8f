/**
 * `kv.secretstore`: the secrets manager's KV engine (Vault's KV v1 and v2), with the call shape
 * docs/spec/gateway.md gives: `GET {address}/v1/{mount}/{secret}?lease=true`, the token in
 * `X-Secretstore-Token`, `/data` not appended to the path. The answer is
 * `{request_id, lease_id, lease_duration, renewable, data, metadata, auth}`; as Tyk v5.14.0
 * (storage/kv/vault.go), `kv_version: 1` reads the keys in `data` and any other version (2, the
 * default) reads them in `data.data` (or in `data` itself when the answer puts them there, as
 * the shape docs/spec/gateway.md gives does).
 */
import { encodeStorePath, failed, found, valueText, type Failure, type Lookup } from './lookup.js';
import { undici } from './undici-lazy.js';

/** svc.conf's `kv.secretstore`: where `secretstore://` references are read. */
export interface SecretStoreConfig {
  address: string;
  agent_address: string;
  max_retries: number;
  /** Nanoseconds; 0 = 60 s. */
  timeout: number;
  token: string;
  kv_version: number;
}

/** Vault's client retries twice when `max_retries` is not set (Tyk keeps that default). */
const DEFAULT_RETRIES = 2;
const DEFAULT_TIMEOUT_MS = 60_000;

export class SecretStoreClient {
  private readonly base: string | undefined;
  private readonly retries: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly conf: SecretStoreConfig,
    /** Milliseconds between attempts (Vault's client waits 1 to 1.5 s). */
    private readonly retryWaitMs: number,
  ) {
    // As Vault's client: a local agent, when configured, is asked instead of the server.
    const base = (conf.agent_address || conf.address || '').replace(/\/+$/, '');
    this.base = /^https?:\/\/[^/]/i.test(base) ? base : undefined;
    this.retries = conf.max_retries > 0 ? Math.floor(conf.max_retries) : DEFAULT_RETRIES;
    this.timeoutMs = conf.timeout > 0 ? Math.max(1, Math.round(conf.timeout / 1e6)) : DEFAULT_TIMEOUT_MS;
  }

  /** `path/to/secret.key`: the part after the last dot is the key inside the secret. */
  async get(reference: string): Promise<Lookup> {
    if (this.base === undefined) return failed('not_configured', 'kv.secretstore has neither an http(s) address nor an agent_address');
    if (!this.conf.token) return failed('not_configured', 'kv.secretstore.token is empty');
    const dot = reference.lastIndexOf('.');
    if (dot <= 0 || dot === reference.length - 1) return failed('bad_reference', 'expected secret.key (the key inside the secret after the last dot)');
    const path = encodeStorePath(reference.slice(0, dot));
    if (path === undefined) return failed('bad_reference', 'the secret path is empty or has a "." or ".." segment');
    const read = await this.read(path);
    if (!read.ok) return read;
    const keys = this.keysOf(read.body);
    if (keys === undefined) return failed('store_error', 'the answer has no data object');
    const key = reference.slice(dot + 1);
    return Object.hasOwn(keys, key) ? found(valueText(keys[key])) : failed('not_found', 'the secret has no such key');
  }

  private keysOf(body: unknown): Record<string, unknown> | undefined {
    const data = isObject(body) ? body.data : undefined;
    if (!isObject(data)) return undefined;
    if (this.conf.kv_version === 1) return data;
    return isObject(data.data) ? data.data : data;
  }

  /** One secret read: retried on no answer, 5xx (but 501), 412 and 429, as Vault's client retries. */
  private async read(path: string): Promise<{ ok: true; body: unknown } | Failure> {
    const { request } = await undici();
    let last: Failure = failed('unreachable', 'no attempt made');
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, this.retryWaitMs));
      let status: number;
      let text: string;
      try {
        const res = await request(`${this.base}/v1/${path}?lease=true`, {
          method: 'GET',
          headers: { accept: 'application/json', 'x-secretstore-token': this.conf.token },
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        status = res.statusCode;
        text = await res.body.text();
      } catch (err) {
        last = failed('unreachable', (err as Error).message);
        continue;
      }
      if (status === 200) {
        try {
          return { ok: true, body: JSON.parse(text) as unknown };
        } catch {
          return failed('store_error', 'the answer is not JSON');
        }
      }
      if (status === 404) return failed('not_found', 'no such secret');
      last = failed('store_error', `HTTP ${status}: ${text.slice(0, 200)}`);
      const retryable = (status >= 500 && status !== 501) || status === 412 || status === 429;
      if (!retryable) return last;
    }
    return last;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
