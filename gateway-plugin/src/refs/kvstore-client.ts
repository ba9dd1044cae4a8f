/**
 * `kv.kvstore`: Consul's KV HTTP API, as Tyk v5.14.0 reads it through Consul's Go client
 * (storage/kv/consul.go): `GET {scheme}://{address}/v1/kv/{key}?dc={datacenter}`, the token in
 * `X-Consul-Token`, `http_auth` as basic auth, `tls_config` for https. The answer is a JSON array
 * of pairs whose `Value` is base64 (null for a key without data); 404 = no such key.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as Undici from 'undici';
import { encodeStorePath, failed, found, type Lookup } from './lookup.js';
import { undici } from './undici-lazy.js';

/** svc.conf's `kv.kvstore`: where `kvstore://` references are read. */
export interface KvStoreConfig {
  address: string;
  scheme: string;
  datacenter: string;
  http_auth: { username: string; password: string };
  /** Milliseconds a blocking watch may block. */
  wait_time: number;
  token: string;
  tls_config: { address: string; ca_path: string; ca_file: string; cert_file: string; key_file: string; insecure_skip_verify: boolean };
}

export class KvStoreClient {
  private readonly origin: string | undefined;
  private readonly https: boolean;
  private dispatcher: Promise<Undici.Dispatcher | undefined> | undefined;

  constructor(
    private readonly conf: KvStoreConfig,
    private readonly timeoutMs: number,
  ) {
    const address = conf.address ?? '';
    // As Consul's client: an address may carry its scheme (`https://host:8501`), which wins.
    const m = /^([a-z]+):\/\/(.*)$/i.exec(address);
    const scheme = (m?.[1] ?? (conf.scheme || 'http')).toLowerCase();
    const host = m?.[2] ?? address;
    this.https = scheme === 'https';
    this.origin = host !== '' && (scheme === 'http' || scheme === 'https') ? `${scheme}://${host.replace(/\/+$/, '')}` : undefined;
  }

  async get(key: string): Promise<Lookup> {
    if (this.origin === undefined) return failed('not_configured', 'kv.kvstore.address is empty, or its scheme is neither http nor https');
    const path = encodeStorePath(key);
    if (path === undefined) return failed('bad_reference', 'the key is empty or has a "." or ".." segment');
    const query = this.conf.datacenter ? `?dc=${encodeURIComponent(this.conf.datacenter)}` : '';
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.conf.token) headers['x-consul-token'] = this.conf.token;
    const auth = this.conf.http_auth;
    if (auth && (auth.username || auth.password)) {
      headers.authorization = `Basic ${Buffer.from(`${auth.username ?? ''}:${auth.password ?? ''}`).toString('base64')}`;
    }
    let dispatcher: Undici.Dispatcher | undefined;
    try {
      dispatcher = await this.tlsDispatcher();
    } catch (err) {
      return failed('store_error', `kv.kvstore.tls_config: ${(err as Error).message}`);
    }
    const { request } = await undici();
    let status: number;
    let text: string;
    try {
      const res = await request(`${this.origin}/v1/kv/${path}${query}`, {
        method: 'GET',
        headers,
        dispatcher,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      return failed('unreachable', (err as Error).message);
    }
    if (status === 404) return failed('not_found', 'no such key');
    if (status !== 200) return failed('store_error', `HTTP ${status}: ${text.slice(0, 200)}`);
    let pairs: unknown;
    try {
      pairs = JSON.parse(text);
    } catch {
      return failed('store_error', 'the answer is not JSON');
    }
    const pair = Array.isArray(pairs) ? (pairs[0] as { Value?: unknown } | undefined) : undefined;
    if (pair === undefined || typeof pair !== 'object' || pair === null) return failed('store_error', 'the answer is not an array of key/value pairs');
    if (pair.Value === null || pair.Value === undefined) return found('');
    if (typeof pair.Value !== 'string') return failed('store_error', 'the pair has a Value that is not base64 text');
    return found(Buffer.from(pair.Value, 'base64').toString('utf8'));
  }

  /** The https agent with `tls_config`'s files, read once (they are the operator's, named in svc.conf). */
  private tlsDispatcher(): Promise<Undici.Dispatcher | undefined> {
    if (!this.https) return Promise.resolve(undefined);
    this.dispatcher ??= (async () => {
      const tls = this.conf.tls_config ?? ({} as Partial<KvStoreConfig['tls_config']>);
      const ca: Buffer[] = [];
      if (tls.ca_file) ca.push(await readFile(tls.ca_file));
      if (tls.ca_path) {
        const entries = await readdir(tls.ca_path, { withFileTypes: true });
        for (const e of entries.filter((f) => f.isFile()).sort((a, b) => a.name.localeCompare(b.name))) {
          ca.push(await readFile(join(tls.ca_path, e.name)));
        }
      }
      const { Agent } = await undici();
      return new Agent({
        connect: {
          ca: ca.length > 0 ? ca : undefined,
          cert: tls.cert_file ? await readFile(tls.cert_file) : undefined,
          key: tls.key_file ? await readFile(tls.key_file) : undefined,
          rejectUnauthorized: tls.insecure_skip_verify !== true,
          // Consul's TLSConfig.Address: the name the server certificate is checked against.
          servername: tls.address || undefined,
        },
      });
    })();
    this.dispatcher.catch(() => (this.dispatcher = undefined));
    return this.dispatcher;
  }

  async close(): Promise<void> {
    const d = await this.dispatcher?.catch(() => undefined);
    await d?.close();
  }
}
