/**
 * One API definition, classic or OAS, as the gateway serves it ({@link ApiSpec}). External
 * references in any string field are resolved first (Tyk: at load), so the spec holds the
 * resolved values; its `definition` stays as written, references and all, so the management API
 * never shows a resolved secret (Tyk's returns the definition as stored, too).
 */
import { basename, extname } from 'node:path';
import type { References } from '../refs/references.js';
import type { ApiSpec } from './api-spec.js';
import { parseClassic } from './classic.js';
import { DefinitionError } from './definition-error.js';
import { checkFieldSupport } from './field-support.js';
import { Fields } from './fields.js';
import { OAS_EXTENSION, parseOas } from './oas.js';

/**
 * Throws a ConfigError ({@link DefinitionError}) naming `file` (when given) and the field's
 * path, e.g. `apis/petstore.json: proxy.listen_path: expected a string`. `refs` is the
 * gateway's ReferenceResolver (any {@link References}; NO_REFERENCES in tests).
 */
export async function parseApiDefinition(def: unknown, refs: References, file?: string, warn: (message: string) => void = () => {}): Promise<ApiSpec> {
  Fields.root(def, file);
  checkDepth(def, file);
  let resolved: unknown;
  try {
    resolved = await refs.resolveDeep(def);
  } catch (err) {
    // A resolver logs and reads an unreachable store as ''; anything thrown here is a bug in
    // the reference itself (a malformed one): still the definition's error, not a crash.
    throw new DefinitionError(file, '', `cannot resolve external references: ${err instanceof Error ? err.message : String(err)}`);
  }
  const root = Fields.root(resolved, file);
  const fallbackId = file ? basename(file, extname(file)) : '';
  if (root.has('openapi') || root.has(OAS_EXTENSION)) {
    // YAML reads an unquoted `openapi: 3.0` as a number.
    const raw = root.raw('openapi');
    const version = typeof raw === 'number' ? String(raw) : root.str('openapi');
    if (!/^3(\.|$)/.test(version)) root.fail('openapi', `expected an OpenAPI 3 version such as 3.0.3, got ${JSON.stringify(version.slice(0, 20))}`);
    checkFieldSupport(root.value, 'oas', file, warn);
    return parseOas(root, def, file, fallbackId);
  }
  checkFieldSupport(root.value, 'classic', file, warn);
  return parseClassic(root, def, file, fallbackId);
}

/** Deeper than any real definition; a deeper one would overflow the stack of whatever walks it (structuredClone to the workers). */
export const MAX_DEFINITION_DEPTH = 64;

/** Refuses a definition nested deeper than {@link MAX_DEFINITION_DEPTH}, walking it without recursion. */
function checkDepth(def: unknown, file: string | undefined): void {
  const stack: [unknown, number][] = [[def, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_DEFINITION_DEPTH) throw new DefinitionError(file, '', `nested deeper than ${MAX_DEFINITION_DEPTH} levels`);
    for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push([child, depth + 1]);
  }
}
