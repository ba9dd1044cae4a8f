/**
 * The {@link References} over svc.conf's stores (Tyk's external references, docs/spec/gateway.md).
 * Whole-field references (`kvstore://`, `secretstore://`, `secrets://`, `env://`) resolve in
 * svc.conf and API definitions when they load; `$secret_*` (and `env://`) inside a text resolve
 * per request in transformation middleware and URL rewrites, through a short cache.
 *
 * A reference that cannot be resolved becomes '' with one log line saying which and why (never
 * a token or a password), and resolution goes on: a gateway with a store down still starts.
 * A reference only ever reaches the configured store under its API prefix: no file, no other
 * host, no other endpoint of the store.
 */
import { createLogger, scrubSecrets, type Logger } from '@svc/engine';
import { confSecrets } from './conf-secrets.js';
import { KvStoreClient, type KvStoreConfig } from './kvstore-client.js';
import { failed, found, type Failure, type Lookup } from './lookup.js';
import type { References } from './references.js';
import { SecretStoreClient, type SecretStoreConfig } from './secretstore-client.js';
import { TtlCache } from './ttl-cache.js';

/** What svc.conf tells the resolver: its `secrets` (`secrets://`) and its `kv` stores. */
export interface ReferenceConfig {
  secrets: Record<string, string>;
  kv: { kvstore?: KvStoreConfig; secretstore?: SecretStoreConfig };
}

export interface ResolverOptions {
  /** How long an inline store lookup is reused; default 10 s (0 = no cache). */
  inlineTtlMs?: number;
  /** Inline store lookups kept at most; default 1000. */
  inlineMaxEntries?: number;
  /** Milliseconds between secretstore attempts; default 1000 (Vault's client waits 1 to 1.5 s). */
  retryWaitMs?: number;
  /** Milliseconds a kvstore read may take; default 60 s (Consul's client has no limit of its own). */
  kvTimeoutMs?: number;
  /** The environment `env://`, `$secret_env.` and `SVC_GW_SECRETS` read; default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** Deeper than this, a definition's values are left as they are (a definition is never this deep). */
const MAX_DEPTH = 64;

const WHOLE_FIELD = /^(kvstore|secretstore|secrets|env):\/\/(.*)$/s;
// Tyk's character classes (gateway/mw_url_rewrite.go): store keys may hold `/`, conf and env
// keys may not; `env://NAME` takes an environment variable name.
const INLINE = /\$secret_(kvstore|secretstore)\.([A-Za-z0-9_/\-.]+)|\$secret_(conf|env)\.([A-Za-z0-9_\-.]+)|env:\/\/([A-Za-z_][A-Za-z0-9_]*)/g;

type Store = 'kvstore' | 'secretstore';

export class ReferenceResolver implements References {
  private readonly log: Logger;
  private readonly env: NodeJS.ProcessEnv;
  private readonly secrets: Map<string, string>;
  private readonly kvstore: KvStoreClient | undefined;
  private readonly secretstore: SecretStoreClient | undefined;
  private readonly inlineCache: TtlCache<Promise<string>>;
  /** Tokens, passwords and URLs that must not reach a log line. */
  private readonly hidden: { secrets: string[]; urls: string[] };

  constructor(config: ReferenceConfig, log?: Logger, opts: ResolverOptions = {}) {
    this.log = log ?? createLogger({ level: 'OFF' });
    this.env = opts.env ?? process.env;
    this.secrets = confSecrets(config.secrets, this.env.SVC_GW_SECRETS);
    const kv = config.kv ?? {};
    this.kvstore = kv.kvstore ? new KvStoreClient(kv.kvstore, opts.kvTimeoutMs ?? 60_000) : undefined;
    this.secretstore = kv.secretstore ? new SecretStoreClient(kv.secretstore, opts.retryWaitMs ?? 1000) : undefined;
    this.inlineCache = new TtlCache(opts.inlineTtlMs ?? 10_000, opts.inlineMaxEntries ?? 1000);
    this.hidden = {
      secrets: [kv.kvstore?.token, kv.kvstore?.http_auth?.password, kv.secretstore?.token].filter((s): s is string => !!s),
      urls: [kv.kvstore?.address, kv.secretstore?.address, kv.secretstore?.agent_address].filter((s): s is string => !!s),
    };
  }

  async resolveString(value: string): Promise<string> {
    const m = WHOLE_FIELD.exec(value);
    if (m === null) return value;
    const [, kind, key] = m as unknown as [string, string, string];
    let result: Lookup;
    switch (kind) {
      case 'kvstore':
      case 'secretstore':
        result = await this.fromStore(kind, key);
        break;
      case 'secrets':
        result = this.fromConf(key);
        break;
      default:
        result = this.fromEnv(key);
    }
    return result.ok ? result.value : this.unresolved(value, result);
  }

  resolveDeep<T>(value: T): Promise<T> {
    // One lookup per distinct reference in the tree, however often it appears.
    const seen = new Map<string, Promise<string>>();
    const one = (s: string): Promise<string> => {
      let p = seen.get(s);
      if (p === undefined) seen.set(s, (p = this.resolveString(s)));
      return p;
    };
    return walk(value, 0, one) as Promise<T>;
  }

  async resolveInline(text: string, quote: (value: string) => string = (v) => v): Promise<string> {
    if (!text.includes('$secret_') && !text.includes('env://')) return text;
    const matches = [...text.matchAll(INLINE)];
    if (matches.length === 0) return text;
    const values = new Map<string, Promise<string>>();
    for (const m of matches) {
      if (values.has(m[0])) continue;
      values.set(m[0], this.inlineValue(m));
    }
    const resolved = new Map<string, string>();
    await Promise.all([...values].map(async ([ref, p]) => resolved.set(ref, quote(await p))));
    return text.replace(INLINE, (ref) => resolved.get(ref) ?? '');
  }

  /** Ends the kvstore's TLS connections (plain http ones end on their own). */
  async close(): Promise<void> {
    await this.kvstore?.close();
  }

  private inlineValue(m: RegExpMatchArray): Promise<string> {
    const ref = m[0];
    const store = m[1] as Store | undefined;
    if (store !== undefined) {
      const cacheKey = `${store}\u0000${m[2]}`;
      let p = this.inlineCache.get(cacheKey);
      if (p === undefined) {
        // A failure is cached too: a store that is down costs one lookup and one log line per
        // reference per ttl, not one per request.
        p = this.fromStore(store, m[2]!).then((r) => (r.ok ? r.value : this.unresolved(ref, r)));
        this.inlineCache.set(cacheKey, p);
      }
      return p;
    }
    // Per request, a missing conf or env value is Tyk's empty string with a debug line only.
    const r = m[3] === 'conf' ? this.fromConf(m[4]!) : m[3] === 'env' ? this.fromEnvPrefixed(m[4]!) : this.fromEnv(m[5]!);
    if (!r.ok) this.log.debug('external reference not resolved: using an empty value', { reference: ref, code: r.code, reason: r.reason });
    return Promise.resolve(r.ok ? r.value : '');
  }

  private async fromStore(store: Store, key: string): Promise<Lookup> {
    const client = store === 'kvstore' ? this.kvstore : this.secretstore;
    if (client === undefined) return failed('not_configured', `svc.conf has no kv.${store} section`);
    return client.get(key);
  }

  private fromConf(key: string): Lookup {
    const v = this.secrets.get(key);
    return v === undefined ? failed('not_found', 'no such key in svc.conf secrets or SVC_GW_SECRETS') : found(v);
  }

  /** `env://KEY`: the variable `KEY` (5.3.0 and later); absent, `SVC_SECRET_KEY` (the earlier convention). */
  private fromEnv(key: string): Lookup {
    if (key === '') return failed('bad_reference', 'no variable name');
    const v = this.envValue(key);
    return v !== undefined ? found(v) : this.fromEnvPrefixed(key);
  }

  /** The variable `name`, when set (never Object.prototype's `constructor`). */
  private envValue(name: string): string | undefined {
    return Object.hasOwn(this.env, name) ? this.env[name] : undefined;
  }

  /** `$secret_env.KEY`: the variable `SVC_SECRET_KEY` (upper-cased, as Tyk). */
  private fromEnvPrefixed(key: string): Lookup {
    const name = `SVC_SECRET_${key.toUpperCase()}`;
    const v = this.envValue(name);
    return v === undefined || v === '' ? failed('not_found', `${name} is not set`) : found(v);
  }

  private unresolved(reference: string, r: Failure): string {
    const fields = { reference, code: r.code, reason: scrubSecrets(r.reason, this.hidden.secrets, this.hidden.urls) };
    if (r.code === 'not_found') this.log.warn('external reference not resolved: using an empty value', fields);
    else this.log.error('external reference not resolved: using an empty value', fields);
    return '';
  }
}

/** A new tree with every string resolved by `one`; other values, and anything past MAX_DEPTH, kept as they are. */
async function walk(value: unknown, depth: number, one: (s: string) => Promise<string>): Promise<unknown> {
  if (typeof value === 'string') return one(value);
  if (depth >= MAX_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return Promise.all(value.map((v) => walk(v, depth + 1, one)));
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value; // a Date, a Buffer, a class instance
  const entries = await Promise.all(Object.entries(value).map(async ([k, v]) => [k, await walk(v, depth + 1, one)] as const));
  // fromEntries defines own properties: a `__proto__` key from JSON stays a key, not a prototype.
  return Object.fromEntries(entries);
}

/** One resolver per gateway config (its references cache is shared by every request of the config). */
const resolvers = new WeakMap<object, ReferenceResolver>();

/** The resolver of `config`: made on first use, kept while the config lives. */
export function resolverFor(config: ReferenceConfig, log: Logger): ReferenceResolver {
  let r = resolvers.get(config);
  if (r === undefined) resolvers.set(config, (r = new ReferenceResolver(config, log)));
  return r;
}
