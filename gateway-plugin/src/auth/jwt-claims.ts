/**
 * Reading claims as Tyk's JWT middleware does (gateway/mw_jwt.go at v5.14.0): a claim name is
 * first a literal key, then a dot path into nested objects; the identity falls back to `sub`;
 * scopes are a space-separated string or an array of strings.
 */
type Claims = Record<string, unknown>;

function nestedLookup(claims: Claims, path: string[]): unknown {
  let c: unknown = claims;
  for (const k of path) {
    if (c === null || typeof c !== 'object' || Array.isArray(c)) return undefined;
    c = (c as Claims)[k];
  }
  return c;
}

/** `getClaimValue`: a non-empty string at `field` (literal key first, then the dot path). */
export function claimString(claims: Claims, field: string): string | undefined {
  const v = claims[field];
  if (typeof v === 'string' && v !== '') return v;
  if (field.includes('.')) {
    const n = nestedLookup(claims, field.split('.'));
    if (typeof n === 'string' && n !== '') return n;
  }
  return undefined;
}

export const NO_USER_ID = 'no suitable claims for user ID were found';

/** `getUserIDFromClaim` (with the `sub` fallback): the identity, or Tyk's error text. */
export function identityOf(claims: Claims, field: string): { id: string } | { error: string } {
  if (field !== '') {
    const id = claimString(claims, field);
    if (id !== undefined) return { id };
    const empty = claims[field] === '' || (field.includes('.') && nestedLookup(claims, field.split('.')) === '');
    if (empty) return { error: `found an empty user ID in predefined base claim, claim: ${field}` };
  }
  const sub = claims.sub;
  if (typeof sub === 'string') return sub !== '' ? { id: sub } : { error: 'found an empty user ID in sub claim' };
  return { error: NO_USER_ID };
}

/** `getScopeFromClaim`: the scopes at the dot path `name`. */
export function scopesOf(claims: Claims, name: string): string[] {
  const v = nestedLookup(claims, name.split('.'));
  if (typeof v === 'string') return v.split(' ');
  if (Array.isArray(v)) {
    const out: string[] = [];
    // Nested arrays are flattened; inside an array a string is one scope (not split on spaces).
    const walk = (x: unknown): void => {
      if (typeof x === 'string') out.push(x);
      else if (Array.isArray(x)) x.forEach(walk);
    };
    v.forEach(walk);
    return out;
  }
  return [];
}

/** `mapScopeToPolicies`: the distinct policies the scopes map to. */
export function policiesForScopes(mapping: Record<string, string>, scopes: string[]): string[] {
  const out = new Set<string>();
  for (const s of scopes) {
    const p = Object.prototype.hasOwnProperty.call(mapping, s) ? mapping[s] : undefined;
    if (p !== undefined) out.add(p);
  }
  return [...out];
}
