/**
 * Where a processor's schema text comes from: the `schema` field itself, or `schema_path`:
 * a file path (relative to the working directory), a `file://` URL as Benthos writes them
 * (`file:///abs/path.avsc`; `file://./rel.avsc` is read as `./rel.avsc`, as older Benthos
 * versions did), or an `http://` / `https://` URL whose body is the schema.
 */
import { readFile } from 'node:fs/promises';
import { redactUrl, scrubSecrets, urlCredentials } from '@svc/engine';

/** How long fetching a schema over HTTP may take before the processor fails to build. */
const FETCH_TIMEOUT_MS = 10_000;

export interface SchemaFields {
  schema?: string;
  schema_path?: string;
}

/** Why a config names no schema, or two; undefined when it names exactly one. */
export function schemaChoiceProblem(conf: SchemaFields): string | undefined {
  const inline = (conf.schema ?? '') !== '';
  const path = (conf.schema_path ?? '') !== '';
  if (inline && path) return 'set either schema or schema_path, not both';
  if (!inline && !path) return 'a schema is required: set schema (the schema as JSON) or schema_path (a file holding it)';
  return undefined;
}

/** The schema's text. Throws an Error naming the field and what went wrong. */
export async function loadSchemaText(conf: SchemaFields): Promise<string> {
  const problem = schemaChoiceProblem(conf);
  if (problem) throw new Error(problem);
  if (conf.schema) return conf.schema;
  const where = conf.schema_path!;
  if (/^https?:\/\//i.test(where)) return fetchSchema(where);
  const file = where.replace(/^file:\/\//i, '');
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`schema_path "${where}": cannot read the file: ${(err as Error).message}`);
  }
}

/** The largest schema fetched over HTTP: a schema is kilobytes; a server sending more is wrong. */
const MAX_SCHEMA_BYTES = 4 * 1024 * 1024;

/**
 * Fetches a schema; credentials in the URL (`https://user:pass@host/...`) go as basic auth,
 * and no error shows the password.
 */
async function fetchSchema(url: string): Promise<string> {
  const { url: target, authorization } = urlCredentials(url);
  if (!URL.canParse(target)) throw new Error(`schema_path: "${redactUrl(url)}" is not a valid URL`);
  const headers: Record<string, string> = authorization ? { authorization } : {};
  try {
    const res = await fetch(target, { headers, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of res.body ?? []) {
      size += chunk.byteLength;
      if (size > MAX_SCHEMA_BYTES) throw new Error(`the schema is larger than ${MAX_SCHEMA_BYTES} bytes`);
      chunks.push(chunk);
    }
    const body = Buffer.concat(chunks).toString('utf8');
    if (!res.ok) throw new Error(`the server answered ${res.status}: ${body.slice(0, 200)}`);
    return body;
  } catch (err) {
    throw new Error(scrubSecrets(`schema_path "${redactUrl(url)}": cannot fetch it: ${(err as Error).message}`, [], [url]));
  }
}
