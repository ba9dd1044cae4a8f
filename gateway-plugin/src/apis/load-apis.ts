/**
 * The API definitions of `app_path`: every `*.json`, `*.yaml`, `*.yml` of the folder (flat, by
 * name). A broken file is an error naming the file and field; the others still load. Two APIs
 * on one listen path or one id: an error, the first by file order wins.
 *
 * Tyk's pair (what its management API writes for an OAS API, read by api_definition.go
 * loadDefFromFilePath): a classic `<name>.json` with `is_oas` beside `<name>-oas.json` is one API,
 * served from the OAS document (the classic one is Tyk's conversion of it).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { f } from '@svc/engine';
import { parseConfigDocument } from '@svc/engine/kit';
import type { References } from '../refs/references.js';
import type { ApiSpec } from './api-spec.js';
import { parseApiDefinition } from './parse-api-definition.js';

export interface ApiLoadError {
  file: string;
  message: string;
}

const DEFINITION_FILE = /\.(json|ya?ml)$/i;
const OAS_SUFFIX = '-oas.json';

export async function loadApis(dir: string, refs: References): Promise<{ apis: ApiSpec[]; errors: ApiLoadError[]; warnings: string[] }> {
  const apis: ApiSpec[] = [];
  const errors: ApiLoadError[] = [];
  const warnings: string[] = [];
  let names: string[];
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    names = entries
      .filter((e) => (e.isFile() || e.isSymbolicLink()) && DEFINITION_FILE.test(e.name))
      .map((e) => e.name)
      .sort();
  } catch (err) {
    return { apis, errors: [{ file: dir, message: `${dir}: cannot read the API definitions folder (app_path): ${reason(err)}` }], warnings };
  }
  const companions = await oasCompanions(dir, names);
  for (const name of names) {
    if (companions.has(name)) continue;
    const file = join(dir, name);
    try {
      const text = await readFile(file, 'utf8');
      const api = await parseApiDefinition(parseConfigDocument(text, file, f.any()).result(), refs, file, (w) => warnings.push(w));
      const companion = companionOf(name);
      if (companions.has(companion) && api.format === 'oas') api.companionFile = join(dir, companion);
      apis.push(api);
    } catch (err) {
      errors.push({ file, message: err instanceof Error && err.message.startsWith(file) ? err.message : `${file}: ${reason(err)}` });
    }
  }
  const checked = checkCollisions(apis);
  return { apis: checked.apis, errors: [...errors, ...checked.errors], warnings };
}

/** `<name>.json` for `<name>-oas.json` ('' for another name). */
function companionOf(name: string): string {
  return name.endsWith(OAS_SUFFIX) ? `${name.slice(0, -OAS_SUFFIX.length)}.json` : '';
}

/** The classic halves of Tyk's pairs in `names`: each `<name>.json` with `is_oas` true beside `<name>-oas.json`. */
async function oasCompanions(dir: string, names: string[]): Promise<Set<string>> {
  const present = new Set(names);
  const out = new Set<string>();
  for (const name of names) {
    const companion = companionOf(name);
    if (companion === '' || !present.has(companion)) continue;
    try {
      const def: unknown = JSON.parse(await readFile(join(dir, companion), 'utf8'));
      if (def !== null && typeof def === 'object' && (def as { is_oas?: unknown }).is_oas === true) out.add(companion);
    } catch {
      // Not a pair: the file loads (and reports its errors) as any other.
    }
  }
  return out;
}

/**
 * Keeps the first API of each listen path (on its domain) and each id (in the order given) and names every
 * later one as an error: the loader uses it on the folder, the management API on a new set.
 */
export function checkCollisions(apis: ApiSpec[]): { apis: ApiSpec[]; errors: ApiLoadError[] } {
  const byId = new Map<string, ApiSpec>();
  const byPath = new Map<string, ApiSpec>();
  const kept: ApiSpec[] = [];
  const errors: ApiLoadError[] = [];
  for (const api of apis) {
    const file = api.file ?? `api ${api.id}`;
    const sameId = byId.get(api.id);
    // Tyk counts a listen path per domain (generateDomainPath: the domain unless switched off, then the path).
    const route = `${api.domainOn === true ? api.domain : ''}${api.listenPath}`;
    const samePath = byPath.get(route);
    if (sameId) {
      errors.push({
        file,
        message: `${file}: ${idField(api)}: the id ${JSON.stringify(api.id)} is already used by ${where(sameId)} (that one is served, this one is not)`,
      });
    } else if (samePath) {
      errors.push({
        file,
        message: `${file}: ${listenPathField(api)}: the listen path ${JSON.stringify(api.listenPath)} is already served by ${where(samePath)} (that one is served, this one is not)`,
      });
    } else {
      byId.set(api.id, api);
      byPath.set(route, api);
      kept.push(api);
    }
  }
  return { apis: kept, errors };
}

function where(api: ApiSpec): string {
  return api.file ? `${api.file} (api ${api.id})` : `api ${api.id}`;
}

function idField(api: ApiSpec): string {
  return api.format === 'oas' ? 'x-svc-api-gateway.info.id' : 'api_id';
}

function listenPathField(api: ApiSpec): string {
  return api.format === 'oas' ? 'x-svc-api-gateway.server.listenPath.value' : 'proxy.listen_path';
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
