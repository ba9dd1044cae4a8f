/**
 * An API definition as the hub shows it (GET /api/apis/{id}/): the stored definition with its
 * secrets masked. A string is replaced by `xxxxx` when its field's name says it holds a secret
 * (secret, password, private key, credential, an API key, a token, Tyk's `jwt_source`, an
 * `Authorization` header value), and every URL keeps all but its password. The stored
 * definition itself is left as the provider sent it.
 */
import { JsonNumber, REDACTED, redactUrl } from '@svc/engine';

const SECRET_FIELD = /secret|passw(or)?d|private_?key|credential|(^|[_-])(api_?key|token|jwt_source|authorization)$/i;

export function maskedDefinition(value: unknown, secretField = false): unknown {
  if (typeof value === 'string') return secretField && value !== '' ? REDACTED : redactUrl(value);
  if (Array.isArray(value)) return value.map((v) => maskedDefinition(v, secretField));
  if (value !== null && typeof value === 'object' && !(value instanceof JsonNumber)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = maskedDefinition(v, SECRET_FIELD.test(k));
    return out;
  }
  return value;
}
