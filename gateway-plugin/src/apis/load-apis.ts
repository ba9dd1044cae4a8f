/**
 * The API definitions of `app_path`: every `*.json`, `*.yaml`, `*.yml` of the folder (flat, by
 * name). A broken file is an error naming the file and field; the others still load. Two APIs
 * on one listen path or one id: an error, the first by file order wins.
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
  for (const name of names) {
    const file = join(dir, name);
    try {
      const text = await readFile(file, 'utf8');
      apis.push(await parseApiDefinition(parseConfigDocument(text, file, f.any()).result(), refs, file, (w) => warnings.push(w)));
    } catch (err) {
      errors.push({ file, message: err instanceof Error && err.message.startsWith(file) ? err.message : `${file}: ${reason(err)}` });
    }
  }
  const checked = checkCollisions(apis);
  return { apis: checked.apis, errors: [...errors, ...checked.errors], warnings };
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
