/**
 * svc.conf: JSON with Tyk's gateway config names, read into {@link GatewayConfig}. Unknown fields
 * are warnings (Tyk's config is large); a wrong type is a ConfigError naming the file and the
 * field's dotted path; invalid JSON is a ConfigError with line and column. Then, in order:
 * `SVC_GW_SECRETS` merges into `secrets`, relative paths resolve against the file's folder, and
 * the external references of svc.conf's fields resolve, once.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { createLogger, type Logger } from '@svc/engine';
import { DefinitionError } from '../apis/definition-error.js';
import { parseJsonText } from '../apis/definition-text.js';
import { checkConfSupport, isKnownConfField } from '../apis/field-support.js';
import { childPath, isObject, kindOf } from '../apis/fields.js';
import { confSecrets } from '../refs/conf-secrets.js';
import { ReferenceResolver } from '../refs/resolver.js';
import { GATEWAY_CONFIG_SCHEMA, REFERENCE_FIELDS, type Schema } from './config-schema.js';
import type { GatewayConfig } from './gateway-config.js';

export interface LoadConfigOptions {
  /** Where an unresolvable reference is logged (never with a token). */
  log?: Logger;
  /** The environment `SVC_GW_SECRETS` and `env://` read; default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

export async function loadGatewayConfig(file: string, options: LoadConfigOptions = {}): Promise<{ config: GatewayConfig; warnings: string[] }> {
  const env = options.env ?? process.env;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new DefinitionError(file, '', `cannot read the gateway config: ${err instanceof Error ? err.message : String(err)}`);
  }
  const raw = parseJsonText(text, file);
  if (!isObject(raw)) throw new DefinitionError(file, '', `expected a JSON object (the gateway config), got ${kindOf(raw)}`);
  const warnings: string[] = [];
  checkConfSupport(raw, file, (w) => warnings.push(w));
  const read = readSection(raw, GATEWAY_CONFIG_SCHEMA, '', file, warnings) as Omit<GatewayConfig, 'baseDir'> & { enable_redis_rolling_limiter?: boolean };
  // Tyk's name (tyk.conf) and docs/spec/gateway.md's name for the rolling-window limiter switch: either turns it on.
  read.enable_shared_store_rolling_limiter ||= read.enable_redis_rolling_limiter === true;
  delete read.enable_redis_rolling_limiter;
  const baseDir = dirname(resolve(file));
  const config: GatewayConfig = { ...read, baseDir };
  config.secrets = Object.fromEntries(confSecrets(config.secrets, env['SVC_GW_SECRETS']));
  config.app_path = against(baseDir, config.app_path);
  config.policies.policy_path = against(baseDir, config.policies.policy_path);
  config.policies.policy_record_name = against(baseDir, config.policies.policy_record_name);
  await resolveReferences(config, options.log, env);
  return { config, warnings };
}

/** A relative path against the config's folder; '' stays '' (not set). */
function against(baseDir: string, path: string): string {
  return path === '' || isAbsolute(path) ? path : resolve(baseDir, path);
}

/** svc.conf's reference fields (docs/spec/gateway.md), resolved once over the `secrets` and `kv` just read. */
async function resolveReferences(config: GatewayConfig, log: Logger | undefined, env: NodeJS.ProcessEnv): Promise<void> {
  const holders: Record<string, Record<string, unknown> | undefined> = {
    '': config as unknown as Record<string, unknown>,
    storage: config.storage as unknown as Record<string, unknown> | undefined,
    policies: config.policies,
  };
  const targets = REFERENCE_FIELDS.map((path) => {
    const dot = path.lastIndexOf('.');
    return { holder: holders[dot < 0 ? '' : path.slice(0, dot)], key: path.slice(dot + 1) };
  }).filter((t) => t.holder !== undefined && typeof t.holder[t.key] === 'string' && /^(kvstore|secretstore|secrets|env):\/\//.test(t.holder[t.key] as string));
  if (targets.length === 0) return;
  const refs = new ReferenceResolver(config, log ?? createLogger({ level: 'OFF' }), { env });
  try {
    for (const t of targets) t.holder![t.key] = await refs.resolveString(t.holder![t.key] as string);
  } finally {
    await refs.close();
  }
}

/** One object of the config against its schema: typed values, defaults, a warning per unknown field. */
function readSection(value: Record<string, unknown>, schema: Schema, path: string, file: string, warnings: string[]): Record<string, unknown> {
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(schema, key) && !isKnownConfField(childPath(path, key)))
      warnings.push(`${file}: unknown field ${JSON.stringify(childPath(path, key))} (ignored)`);
  }
  const out: Record<string, unknown> = {};
  for (const [key, type] of Object.entries(schema)) {
    const at = childPath(path, key);
    const v = Object.hasOwn(value, key) && value[key] !== null ? value[key] : undefined;
    const wrong = (expected: string): never => {
      throw new DefinitionError(file, at, `expected ${expected}, got ${kindOf(v)}`);
    };
    switch (type.kind) {
      case 'string':
        if (v !== undefined && typeof v !== 'string') wrong('a string');
        out[key] = v ?? type.default;
        break;
      case 'bool':
        if (v !== undefined && typeof v !== 'boolean') wrong('true or false');
        out[key] = v ?? type.default;
        break;
      case 'int':
        if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v))) wrong('an integer');
        if (v !== undefined && ((v as number) < (type.min ?? 0) || (v as number) > (type.max ?? Number.MAX_SAFE_INTEGER))) {
          throw new DefinitionError(file, at, `expected an integer from ${type.min ?? 0} to ${type.max ?? Number.MAX_SAFE_INTEGER}, got ${String(v)}`);
        }
        out[key] = v ?? type.default;
        break;
      case 'seconds':
        if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) wrong('a number of seconds, 0 or more');
        out[key] = v ?? type.default;
        break;
      case 'strings':
        if (v !== undefined && (!Array.isArray(v) || !v.every((s) => typeof s === 'string'))) wrong('an array of strings');
        out[key] = v ?? [];
        break;
      case 'stringMap':
        if (v !== undefined && !isObject(v)) wrong('an object of strings');
        for (const [k, s] of Object.entries((v as Record<string, unknown> | undefined) ?? {})) {
          if (typeof s !== 'string') throw new DefinitionError(file, childPath(at, k), `expected a string, got ${kindOf(s)}`);
        }
        out[key] = { ...((v as Record<string, string> | undefined) ?? {}) };
        break;
      case 'object':
        if (v !== undefined && !isObject(v)) wrong('an object');
        if (v === undefined && type.optional) break;
        out[key] = readSection((v as Record<string, unknown> | undefined) ?? {}, type.fields, at, file, warnings);
        break;
    }
  }
  return out;
}
