/**
 * OAS `validateRequest` as Tyk v5.14.0's ValidateRequest (`gateway/mw_oas_validate_request.go`)
 * checks a request body: kin-openapi's openapi3filter.ValidateRequestBody (Tyk's fork,
 * `SchemaErrorDetailsDisabled`), first failure only, worded as kin-openapi words it, prefixed
 * `request validation error: `:
 *
 * - an empty body: `request body has an error: value is required but missing` when the
 *   operation's `requestBody.required`, else it passes;
 * - a Content-Type the body's `content` does not name (exactly, without parameters, `type/*`,
 *   `*\/*`): `request body has an error: header Content-Type has unexpected value "text/plain"`;
 * - not JSON: `request body has an error: failed to decode request body: <Go's words>`;
 * - a schema failure: `request body has an error: doesn't match schema[ <$ref or title>]:
 *   [Error at "/a/0": ]<reason>`, with kin-openapi's order (enum before type; an object's
 *   properties by sorted key, then `required`).
 *
 * Parameters are checked before the body (oas-parameters.ts).
 */
import type { JsonSchemaNode } from './json-schema.js';
import { decodeBody } from './go-json-decode.js';
import { codePointLength, goFloat, goJson, oasPattern } from './json-schema.js';

/** An operation's `requestBody` as `validateRequest` checks it. */
export interface OasRequestBody {
  required: boolean;
  /** Media type (as written) → its schema (null: none declared, the body is not checked). */
  content: Record<string, { schema: JsonSchemaNode; id: string } | null>;
}

/** kin-openapi's Content.Get: the exact media type, then without parameters, then `type/*`, then `*\/*`. */
function mediaOf(content: OasRequestBody['content'], mime: string): OasRequestBody['content'][string] | undefined {
  const has = (k: string): boolean => Object.hasOwn(content, k);
  if (mime === '') return has('*/*') ? content['*/*'] : undefined;
  if (has(mime)) return content[mime];
  const bare = mime.split(';')[0]!;
  if (has(bare)) return content[bare];
  const slash = bare.indexOf('/');
  if (slash < 0) return undefined;
  const wild = `${bare.slice(0, slash)}/*`;
  if (has(wild)) return content[wild];
  return has('*/*') ? content['*/*'] : undefined;
}

/** The refusal's text for `body` sent with `contentType` (the first Content-Type line, '' if none), or undefined when it passes. */
export function requestBodyFailure(spec: OasRequestBody, contentType: string, body: Buffer): string | undefined {
  const failed = (reason: string): string => `request validation error: request body has an error: ${reason}`;
  if (body.length === 0) return spec.required ? failed('value is required but missing') : undefined;
  if (Object.keys(spec.content).length === 0) return undefined;
  const media = mediaOf(spec.content, contentType);
  if (media === undefined) return failed(`header Content-Type has unexpected value ${JSON.stringify(contentType)}`);
  if (media === null) return undefined;
  const decoded = decodeBody(body);
  if ('error' in decoded) return failed(`failed to decode request body: ${decoded.error}`);
  const reason = firstFailure(media.schema, decoded.value, []);
  return reason === undefined ? undefined : failed(`doesn't match schema${media.id ? ` ${media.id}` : ''}: ${reason}`);
}

/** kin-openapi's schema failure for a decoded value (a parameter's), without a path. */
export function schemaFailure(node: JsonSchemaNode, value: unknown): string | undefined {
  return firstFailure(node, value, []);
}

function kindOf(v: unknown): 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object' {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  const t = typeof v;
  return t === 'boolean' || t === 'number' || t === 'string' ? t : 'object';
}

/** kin-openapi's Schema.IsEmpty for the keywords svc compiles. */
function isEmpty(node: JsonSchemaNode): boolean {
  return (
    node.types === undefined &&
    node.enumJson === undefined &&
    node.nullable !== true &&
    node.minimum === undefined &&
    node.maximum === undefined &&
    node.minLength === undefined &&
    node.maxLength === undefined &&
    node.pattern === undefined &&
    node.minItems === undefined &&
    node.maxItems === undefined &&
    (node.required?.length ?? 0) === 0 &&
    node.additionalProperties !== false &&
    (node.items === undefined || isEmpty(node.items)) &&
    (node.properties ?? []).every(([, p]) => isEmpty(p))
  );
}

function firstFailure(node: JsonSchemaNode, value: unknown, path: string[]): string | undefined {
  const at = (reason: string): string => (path.length > 0 ? `Error at "/${path.join('/')}": ${reason}` : reason);
  const permits = (t: string): boolean => node.types === undefined || node.types.includes(t);
  const expected = (): string => {
    const types = node.types ?? [];
    if (types.length !== 1) return at(`value must be one of ${types.join(', ')}`);
    const t = types[0]!;
    return at(`value must be ${t === 'array' || t === 'object' || t === 'integer' ? 'an' : 'a'} ${t}`);
  };
  // kin-openapi's ErrSchemaInputNaN / ErrSchemaInputInf (a parameter's Go-parsed number), without a path.
  if (typeof value === 'number' && !Number.isFinite(value)) return `floating point ${Number.isNaN(value) ? 'NaN' : 'Inf'} is not allowed`;
  const kind = kindOf(value);
  if (kind === 'null' && (node.nullable === true || node.types?.includes('null') === true)) return undefined;
  if (isEmpty(node)) return kind === 'null' ? at('Value is not nullable') : undefined;
  if (node.enumJson !== undefined && !node.enumJson.includes(goJson(value))) return at(`value is not one of the allowed values [${node.enumJson.join(',')}]`);
  switch (kind) {
    case 'null':
      return at('Value is not nullable');
    case 'boolean':
      return permits('boolean') ? undefined : expected();
    case 'number': {
      const n = value as number;
      if (permits('integer') && !permits('number')) {
        if (!Number.isInteger(n)) return at('value must be an integer');
      } else if (!permits('integer') && !permits('number')) return expected();
      if (node.minimum !== undefined && !(node.minimum <= n)) return at(`number must be at least ${goFloat(node.minimum)}`);
      if (node.maximum !== undefined && !(node.maximum >= n)) return at(`number must be at most ${goFloat(node.maximum)}`);
      return undefined;
    }
    case 'string': {
      if (!permits('string')) return expected();
      const length = codePointLength(value as string);
      if (node.minLength !== undefined && node.minLength !== 0 && length < node.minLength) return at(`minimum string length is ${node.minLength}`);
      if (node.maxLength !== undefined && length > node.maxLength) return at(`maximum string length is ${node.maxLength}`);
      if (
        node.pattern !== undefined &&
        !oasPattern(node.pattern)
          .matcher(value as string)
          .find()
      )
        return at(`string doesn't match the regular expression "${node.pattern}"`);
      return undefined;
    }
    case 'array': {
      if (!permits('array')) return expected();
      const list = value as unknown[];
      if (node.minItems !== undefined && node.minItems !== 0 && list.length < node.minItems) return at(`minimum number of items is ${node.minItems}`);
      if (node.maxItems !== undefined && list.length > node.maxItems) return at(`maximum number of items is ${node.maxItems}`);
      if (node.items !== undefined) {
        for (let i = 0; i < list.length; i++) {
          const f = firstFailure(node.items, list[i], [...path, String(i)]);
          if (f !== undefined) return f;
        }
      }
      return undefined;
    }
    default: {
      if (!permits('object')) return expected();
      const obj = value as Record<string, unknown>;
      const props = new Map(node.properties ?? []);
      for (const k of Object.keys(obj).sort()) {
        const p = props.get(k);
        if (p !== undefined) {
          const f = firstFailure(p, obj[k], [...path, k]);
          if (f !== undefined) return f;
        } else if (node.additionalProperties === false) return at(`property ${JSON.stringify(k)} is unsupported`);
      }
      for (const k of node.required ?? []) if (!Object.hasOwn(obj, k)) return `Error at "/${[...path, k].join('/')}": property ${JSON.stringify(k)} is missing`;
      return undefined;
    }
  }
}
