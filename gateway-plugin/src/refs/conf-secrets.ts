/**
 * The `secrets://` map: svc.conf's `secrets` with `SVC_GW_SECRETS=key:value,key2:value2` over it
 * (the environment overrides the file, key by key, as every `SVC_GW_*` variable does). A value
 * runs to the next comma and may hold `:` (`url:http://h:1/`); an entry without `:` is skipped.
 */
export function confSecrets(fromFile: Record<string, string> | undefined, envValue: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(fromFile ?? {})) if (typeof v === 'string') out.set(k, v);
  for (const entry of (envValue ?? '').split(',')) {
    const colon = entry.indexOf(':');
    if (colon <= 0) continue;
    out.set(entry.slice(0, colon).trim(), entry.slice(colon + 1));
  }
  return out;
}
