/**
 * OAS `validateRequest`, the parameters: kin-openapi's openapi3filter.ValidateParameter as Tyk
 * v5.14.0 runs it (path-item parameters the operation does not override by `in` + `name` first,
 * then the operation's, before the body; first failure only), for parameters `in` path, query,
 * header or cookie with the default style/explode and a `schema` of one primitive type (string,
 * integer, number, boolean) or, but in a cookie, an array of one (query: one item per value; path
 * and header: split on `,`); oas.ts refuses anything else at load. Words as kin-openapi's:
 *
 * - absent and `required`: `parameter "id" in query has an error: value is required but missing`;
 * - present but empty (`?a=`, `a:` with nothing): `... has an error: empty value is not allowed`;
 * - not its type: `... has an error: value x: an invalid integer: invalid syntax` (Go's strconv);
 * - a schema failure: `... has an error: number must be at most 10` (as the body's, without a path).
 *
 * Where the value comes from, as kin-openapi reads it: a path parameter from the request path
 * (decoded, listen path stripped) at the template's segment; a query parameter's first value after
 * Go's url.ParseQuery; a header's value (several fields of one header: Tyk joins them with `,`
 * (normalizeHeaders), Node with `, `: a known difference, the value checked differs).
 */
import type { JsonSchemaNode } from './json-schema.js';
import type { GoParse } from './go-strconv.js';
import { goParseBool, goParseFloat, goParseInt } from './go-strconv.js';
import { schemaFailure } from './oas-request-validation.js';

type PrimitiveType = 'string' | 'integer' | 'number' | 'boolean';

/** One parameter as `validateRequest` checks it. */
export interface OasParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  type: PrimitiveType | 'array';
  /** `type: array`: its items' type. */
  items?: PrimitiveType;
  schema: JsonSchemaNode;
  /** `in: path`: the index of its `{name}` segment in the operation's path. */
  segment?: number;
}

/** What a parameter check reads of the request. */
export interface ParameterSource {
  /** The request path after the listen path, percent-decoded, as Go's URL.Path. */
  path: string;
  /** Go's url.ParseQuery of the query. */
  query: Map<string, string[]>;
  /** Request headers, names lower-cased, as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
}

/** Go's textproto.TrimString: ASCII space, tab, CR and LF off both ends. */
function trimAscii(s: string): string {
  return s.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Go's Request.Cookie(name) (net/http readCookies, Go 1.26): the first `name=value` of the Cookie
 * header (several fields joined with `; `, as Tyk's normalizeHeaders and Node join them) whose name
 * is a token and whose value (quotes stripped) has only bytes 0x20-0x7e but `"`, `;`, `\\`; no
 * cookie at all past 3000 of them.
 */
function cookieValue(src: ParameterSource, name: string): string | undefined {
  const header = src.headers['cookie'];
  const line = Array.isArray(header) ? header.join('; ') : header;
  if (line === undefined || name === '' || line.split(';').length > 3000) return undefined;
  for (const raw of trimAscii(line).split(';')) {
    const part = trimAscii(raw);
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (trimAscii(eq < 0 ? part : part.slice(0, eq)) !== name || !TOKEN.test(name)) continue;
    let value = eq < 0 ? '' : part.slice(eq + 1);
    if (value.length > 1 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (/^[\x20-\x7e]*$/.test(value) && !/["\\;]/.test(value)) return value;
  }
  return undefined;
}

function headerValue(src: ParameterSource, name: string): string | undefined {
  const v = src.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(',') : v;
}

/** The parameter's texts (one, or an array's items; [''] when present but empty), or undefined when the request has none. */
function rawValues(p: OasParameter, src: ParameterSource): string[] | undefined {
  const split = (v: string | undefined): string[] | undefined => (v === undefined ? undefined : p.type === 'array' ? v.split(',') : [v]);
  switch (p.in) {
    case 'path': {
      const value = src.path.replace(/^\/+|\/+$/g, '').split('/')[p.segment ?? -1];
      return value === '' ? undefined : split(value);
    }
    case 'query': {
      const values = src.query.get(p.name);
      // form, explode: every value is an item; otherwise the first value.
      return values === undefined || p.type === 'array' ? values : values.slice(0, 1);
    }
    case 'cookie':
      return split(cookieValue(src, p.name));
    default:
      return split(headerValue(src, p.name));
  }
}

function parsed(type: PrimitiveType, raw: string): GoParse<unknown> {
  switch (type) {
    case 'integer':
      return goParseInt(raw);
    case 'number':
      return goParseFloat(raw);
    case 'boolean':
      return goParseBool(raw);
    default:
      return { value: raw };
  }
}

/** The refusal's text for the first parameter the request fails (kin-openapi's order), or undefined. */
export function parameterFailure(params: OasParameter[], src: ParameterSource): string | undefined {
  for (const p of params) {
    const failed = (reason: string): string => `request validation error: parameter ${JSON.stringify(p.name)} in ${p.in} has an error: ${reason}`;
    const raws = rawValues(p, src);
    if (raws === undefined) {
      if (p.required) return failed('value is required but missing');
      continue;
    }
    // kin-openapi: an empty text is no value, and an array with an empty item is no array.
    if (raws.includes('')) return failed('empty value is not allowed');
    const items = p.items ?? (p.type as PrimitiveType);
    const values: unknown[] = [];
    for (const [i, raw] of raws.entries()) {
      const value = parsed(items, raw);
      if ('error' in value) return failed(`${p.type === 'array' ? `path ${i}: ` : ''}value ${raw}: an invalid ${items}: ${value.error}`);
      values.push(value.value);
    }
    const reason = schemaFailure(p.schema, p.type === 'array' ? values : values[0]);
    if (reason !== undefined) return failed(reason);
  }
  return undefined;
}
