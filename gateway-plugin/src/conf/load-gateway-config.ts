/**
 * svc.conf: JSON with Tyk's gateway config names, read into {@link GatewayConfig} by the engine's
 * config-document loader. Unknown fields are warnings (Tyk's config is large); invalid JSON and a
 * wrong type are a ConfigError at the file, line and column (`svc.conf:3:19 expected an integer at
 * listen_port, ...`). Then, in order:
 * `SVC_GW_SECRETS` merges into `secrets`, relative paths resolve against the file's folder, and
 * the external references of svc.conf's fields resolve, once.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { createLogger, f, type Logger } from '@svc/engine';
import { parseConfigDocument } from '@svc/engine/kit';
import { DefinitionError } from '../apis/definition-error.js';
import { checkConfSupport, isKnownConfField } from '../apis/field-support.js';
import { isObject } from '../apis/fields.js';
import { confSecrets } from '../refs/conf-secrets.js';
import { ReferenceResolver } from '../refs/resolver.js';
import { GATEWAY_CONFIG_SPEC, REFERENCE_FIELDS } from './config-schema.js';
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
  const warnings: string[] = [];
  // As written first: Tyk's fields svc does not implement are refused before any type is judged.
  const raw = parseConfigDocument(text, file, f.any(), { format: 'json' }).result();
  if (isObject(raw)) checkConfSupport(raw, file, (w) => warnings.push(w));
  const read = parseConfigDocument(text, file, GATEWAY_CONFIG_SPEC, {
    format: 'json',
    what: 'the gateway config',
    unknownField: (path) => {
      if (!isKnownConfField(path)) warnings.push(`${file}: unknown field ${JSON.stringify(path)} (ignored)`);
    },
  }).result() as Omit<GatewayConfig, 'baseDir'> & { enable_redis_rolling_limiter?: boolean };
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
    cache_storage: config.cache_storage as unknown as Record<string, unknown> | undefined,
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
