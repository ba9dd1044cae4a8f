/**
 * An API definition as the hub shows it (GET /api/apis/{id}/): the stored definition with its
 * secrets masked, in either form (Tyk classic or OAS with its gateway extension). A string is
 * replaced by `xxxxx` when
 * - its field's name says it holds a secret (secret, password, private key, credential, an API
 *   key, a token, `jwt_source`, an `Authorization` value);
 * - it is a JWT key source: `source` under a `jwt`, `securitySchemes` or external OAuth object;
 * - it is a header's value and the header's name is a credential's (`Cookie`, `X-Api-Key`, any
 *   name with token, secret, password or key in it): inside any field named like `*header*`
 *   (`global_headers`, `add_headers`, `header_map`, `transformRequestHeaders`), as a map
 *   (`{"X-Api-Key": "..."}`) or as a list (`[{"name": "X-Api-Key", "value": "..."}]`).
 * Every string keeps all but its URL passwords and the values of credential query parameters
 * (`?api_key=`, `token`, `sig`, ...). The stored definition itself is left as the provider sent it.
 */
import { JsonNumber, REDACTED, redactUrl } from '@svc/engine';

const SECRET_FIELD = /secret|passw(or)?d|private_?key|credential|(^|[_-])(api_?key|token|jwt_source|authorization)$/i;

/** Header names that carry a credential whatever their words say. */
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-svc-authorization',
  'x-tyk-authorization',
  'x-amz-security-token',
  'x-hub-signature',
  'x-hub-signature-256',
]);
/** Query parameters that carry a credential whatever their words say. */
const SECRET_PARAMS = new Set(['key', 'sig', 'code', 'auth', 'jwt', 'pwd', 'pass', 'session', 'sessionid', 'x-amz-signature', 'x-amz-credential']);
/** Words that make a header or parameter name a credential's (`X-Auth-Token`, `client_secret`, `accessToken`, `apikey`). */
const SECRET_WORDS = /secret|token|passw(or)?d|credential|signature|apikey|privatekey|sessionid/;
/** `key`, `auth` and `sig` count as whole words only: `X-Key-Id` and `x_auth` are, `Keep-Alive` and `Author` are not. */
const SECRET_WHOLE_WORDS = new Set(['key', 'auth', 'sig', 'jwt', 'pwd']);

/** The words of a name: `X-Api-Key` and `accessToken` and `api_key` alike. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

function secretName(name: string, exact: ReadonlySet<string>): boolean {
  const lower = name.toLowerCase();
  if (exact.has(lower)) return true;
  const w = words(name);
  return SECRET_WORDS.test(w.join('')) || w.some((x) => SECRET_WHOLE_WORDS.has(x));
}

/** Whether a header of this name (any case) holds a credential. */
export function secretHeader(name: string): boolean {
  return secretName(name, SECRET_HEADERS);
}

/** Whether a query parameter of this name (any case, percent-decoded) holds a credential. */
export function secretParam(name: string): boolean {
  return secretName(name, SECRET_PARAMS);
}

// A parameter is text after `?` or `&` up to `=`; its value runs to the next `&`, `#`, quote or space.
const QUERY_PARAM = /([?&])([^=&#?\s"']+)=([^&#\s"']*)/g;

/** The text with URL passwords and credential query parameters' values shown as `xxxxx`. */
export function maskedText(text: string): string {
  const shown = redactUrl(text);
  if (!shown.includes('?')) return shown;
  return shown.replace(QUERY_PARAM, (m, sep: string, name: string, value: string) =>
    value !== '' && secretParam(decoded(name)) ? `${sep}${name}=${REDACTED}` : m,
  );
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** Where a value sits: what its own field's name says, and what its ancestors' names say. */
interface Place {
  secret: boolean;
  /** Inside a field named like `*header*`: names are header names. */
  headers: boolean;
  /** Inside a JWT or security-scheme object: `source` is a key. */
  keySource: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonNumber);

/** The definition (JSON parsed with numbers as written) with its secrets masked. */
export function maskedDefinition(value: unknown): unknown {
  return masked(value, { secret: false, headers: false, keySource: false });
}

function masked(value: unknown, at: Place): unknown {
  if (typeof value === 'string') return at.secret && value !== '' ? REDACTED : maskedText(value);
  if (Array.isArray(value)) return value.map((v) => masked(v, at));
  if (!isObject(value)) return value;
  // A header as a pair: [{"name": "X-Api-Key", "value": "..."}].
  const pairName = at.headers ? (typeof value.name === 'string' ? value.name : typeof value.key === 'string' ? value.key : undefined) : undefined;
  const secretPair = pairName !== undefined && secretHeader(pairName);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const secret = SECRET_FIELD.test(k) || (at.headers && secretHeader(k)) || (secretPair && k === 'value') || (at.keySource && k === 'source');
    out[k] = masked(v, {
      secret,
      headers: at.headers || /header/i.test(k),
      keySource: at.keySource || /jwt|securityschemes|external_?oauth/i.test(k),
    });
  }
  return out;
}
