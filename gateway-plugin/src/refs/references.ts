/**
 * External references (Tyk's external references, docs/spec/gateway.md): `kvstore://`,
 * `secretstore://`, `secrets://` and `env://` in svc.conf and in any string field of an API
 * definition, and `$secret_kvstore.`, `$secret_secretstore.`, `$secret_conf.`, `$secret_env.`
 * inside transformation middleware and URL rewrites. Loaders take this interface; `resolver.ts`
 * implements it over the configured stores.
 */
export interface References {
  /** A whole-field reference resolved (`kvstore://a/b`, `env://X`, ...); any other string comes back as it is. */
  resolveString(value: string): Promise<string>;
  /** Every string field of `value` (objects and arrays walked) resolved as {@link resolveString}: a new value. */
  resolveDeep<T>(value: T): Promise<T>;
  /**
   * `$secret_*` references inside `text` replaced (per request; cached briefly), each value through
   * `quote` when given. `text` is configured text only: a client's text is never resolved (issue 36).
   */
  resolveInline(text: string, quote?: (value: string) => string): Promise<string>;
}

/** No stores: every string as it is (tests, and definitions without references). */
export const NO_REFERENCES: References = {
  resolveString: (v) => Promise.resolve(v),
  resolveDeep: (v) => Promise.resolve(v),
  resolveInline: (t) => Promise.resolve(t),
};
