/**
 * Where a processor's schema text comes from: the `schema` field itself, or `schema_path`:
 * a file path (relative to the working directory), a `file://` URL as Benthos writes them
 * (`file:///abs/path.avsc`; `file://./rel.avsc` is read as `./rel.avsc`, as older Benthos
 * versions did), or an `http://` / `https://` URL whose body is the schema.
 */
import { readFile } from 'node:fs/promises';

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

async function fetchSchema(url: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (err) {
    throw new Error(`schema_path "${url}": cannot fetch it: ${(err as Error).message}`);
  }
  const body = await res.text();
  if (!res.ok) throw new Error(`schema_path "${url}": the server answered ${res.status}: ${body.slice(0, 200)}`);
  return body;
}
