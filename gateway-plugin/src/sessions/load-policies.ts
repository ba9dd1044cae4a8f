/**
 * Policies from files (`policies.policy_source: file`), as Tyk's gateway/policy.go reads them:
 * `policy_path`, a folder of `*.json` files (by name), wins over `policy_record_name`, one file
 * (Tyk's policies.json: an object of id → policy; an array is accepted too). A folder file holds
 * one policy or such a map. A policy's id is its map key, else its `id`, else (a folder file's
 * single policy) the file's name. A broken file or policy is an error naming it; the rest load;
 * a second policy with an id already loaded is an error, the first wins. On a reload, what a
 * broken file held before is kept ({@link keepingPrevious}), as Tyk keeps its previous set.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { ConfigError, f } from '@svc/engine';
import { parseConfigDocument } from '@svc/engine/kit';
import type { ApiLoadError } from '../apis/load-apis.js';
import { DefinitionError } from '../apis/definition-error.js';
import { childPath, isObject, kindOf } from '../apis/fields.js';
import type { GatewayConfig } from '../conf/gateway-config.js';
import type { AccessDefinition, Policy } from './session.js';

/** Top-level fields that only a policy has: an object holding one of them is a policy, not a map of policies. */
const POLICY_FIELDS = [
  'id',
  '_id',
  'name',
  'org_id',
  'rate',
  'per',
  'quota_max',
  'quota_renewal_rate',
  'access_rights',
  'active',
  'is_inactive',
  'tags',
  'key_expires_in',
  'partitions',
  'meta_data',
  'smoothing',
];
const NUMBER_FIELDS = ['rate', 'per', 'quota_max', 'quota_renewal_rate', 'key_expires_in', 'throttle_interval', 'throttle_retry_limit', 'max_query_depth'];
const BOOL_FIELDS = ['active', 'is_inactive', 'hmac_enabled'];

export async function loadPolicies(config: GatewayConfig): Promise<{ policies: Policy[]; errors: ApiLoadError[] }> {
  const { policy_source: source, policy_path: dir, policy_record_name: record } = config.policies;
  const errors: ApiLoadError[] = [];
  if (source !== 'file' && source !== '') {
    const where = config.baseDir ? join(config.baseDir, 'svc.conf') : 'svc.conf';
    return {
      policies: [],
      errors: [
        { file: where, message: `policies.policy_source: ${JSON.stringify(source)} is not supported: use "file" with policy_path or policy_record_name` },
      ],
    };
  }
  const found: Policy[] = [];
  if (dir !== '') {
    let names: string[] = [];
    try {
      names = (await readdir(dir, { withFileTypes: true }))
        .filter((e) => (e.isFile() || e.isSymbolicLink()) && /\.json$/i.test(e.name))
        .map((e) => e.name)
        .sort();
    } catch (err) {
      errors.push({ file: dir, message: `${dir}: cannot read the policies folder (policies.policy_path): ${reason(err)}` });
    }
    for (const name of names) await readPolicyFile(join(dir, name), 'folder', found, errors);
  } else if (record !== '') {
    await readPolicyFile(record, 'record', found, errors);
  }
  const byId = new Map<string, Policy>();
  const policies: Policy[] = [];
  for (const p of found) {
    const first = byId.get(p.id);
    if (first) {
      const file = fileOf.get(p) ?? '';
      errors.push({
        file,
        message: `${file}: ${p.id}: the policy id ${JSON.stringify(p.id)} is already loaded from ${fileOf.get(first) ?? ''} (that one is used, this one is not)`,
      });
      continue;
    }
    byId.set(p.id, p);
    policies.push(p);
  }
  return { policies, errors };
}

/** Which file each policy came from, for the duplicate message (not a field of the policy: policies are Tyk's JSON shape). */
const fileOf = new WeakMap<Policy, string>();

/** A policy with the file it came from, as it travels to other processes (JSON: the WeakMap stays here). */
export interface PolicyRecord {
  file: string;
  policy: Policy;
}

export function policyRecords(policies: Policy[]): PolicyRecord[] {
  return policies.map((policy) => ({ file: fileOf.get(policy) ?? '', policy }));
}

/** The policies of `records`, each known to come from its file again (for {@link keepingPrevious}). */
export function fromRecords(records: PolicyRecord[]): Policy[] {
  return records.map(({ file, policy }) => {
    if (file !== '') fileOf.set(policy, file);
    return policy;
  });
}

/**
 * A reload's policies: those loaded now, plus each previous policy that came from a file (or
 * folder) that failed to load this time and whose id did not load anew. Tyk keeps its whole
 * previous set when `policy_record_name` does not parse (gateway/server.go syncPolicies); here a
 * broken file costs what it held, never the policies of the files that still parse, nor those it
 * held before. `kept` counts the policies carried over.
 */
export function keepingPrevious(previous: Policy[], loaded: Policy[], errors: ApiLoadError[]): { policies: Policy[]; kept: number } {
  if (errors.length === 0) return { policies: loaded, kept: 0 };
  const broken = new Set(errors.map((e) => e.file));
  const ids = new Set(loaded.map((p) => p.id));
  const policies = [...loaded];
  for (const p of previous) {
    const file = fileOf.get(p);
    if (file === undefined || ids.has(p.id) || !(broken.has(file) || broken.has(dirname(file)))) continue;
    ids.add(p.id);
    policies.push(p);
  }
  return { policies, kept: policies.length - loaded.length };
}

async function readPolicyFile(file: string, kind: 'folder' | 'record', out: Policy[], errors: ApiLoadError[]): Promise<void> {
  let value: unknown;
  try {
    value = parseConfigDocument(await readFile(file, 'utf8'), file, f.any(), { format: 'json' }).result();
  } catch (err) {
    errors.push({ file, message: err instanceof ConfigError ? err.message : `${file}: cannot read the policy file: ${reason(err)}` });
    return;
  }
  let entries: Entry[];
  if (Array.isArray(value)) entries = value.map((raw, i) => ({ path: `[${i}]`, raw }));
  else if (!isObject(value)) {
    errors.push({ file, message: `${file}: expected a JSON object (policies by id, or one policy), got ${kindOf(value)}` });
    return;
  } else if (kind === 'folder' && isSinglePolicy(value)) entries = [{ path: '', raw: value, fallbackId: basename(file, extname(file)) }];
  else entries = Object.entries(value).map(([id, raw]) => ({ path: id, raw, mapKey: id }));
  for (const entry of entries) {
    try {
      const policy = checkPolicy(entry, file);
      fileOf.set(policy, file);
      out.push(policy);
    } catch (err) {
      errors.push({ file, message: err instanceof Error ? err.message : String(err) });
    }
  }
}

/** Why a policy posted to the management API would not load, or undefined (its id is checked by the caller). */
export function policyProblem(raw: unknown): string | undefined {
  try {
    checkPolicy({ path: '', raw, fallbackId: '-' }, 'the request body');
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** A policy as found in a file: its path there, and where its id may come from. */
interface Entry {
  path: string;
  raw: unknown;
  /** The key of a map of policies: Tyk takes it over the policy's own `id`. */
  mapKey?: string;
  /** A folder file's single policy without `id`: the file's name. */
  fallbackId?: string;
}

function isSinglePolicy(value: Record<string, unknown>): boolean {
  return POLICY_FIELDS.some((f) => Object.hasOwn(value, f)) || !Object.values(value).every(isObject);
}

/** A policy as Tyk's JSON shape, its types checked where the gateway reads them. */
function checkPolicy({ path, raw, mapKey, fallbackId }: Entry, file: string): Policy {
  if (!isObject(raw)) throw new DefinitionError(file, path, `expected a policy object, got ${kindOf(raw)}`);
  const fail = (field: string, problem: string): never => {
    throw new DefinitionError(file, childPath(path, field), problem);
  };
  if (raw['id'] !== undefined && raw['id'] !== null && typeof raw['id'] !== 'string') fail('id', `expected a string, got ${kindOf(raw['id'])}`);
  for (const f of NUMBER_FIELDS)
    if (raw[f] !== undefined && raw[f] !== null && (typeof raw[f] !== 'number' || !Number.isFinite(raw[f])))
      fail(f, `expected a number, got ${kindOf(raw[f])}`);
  for (const f of BOOL_FIELDS)
    if (raw[f] !== undefined && raw[f] !== null && typeof raw[f] !== 'boolean') fail(f, `expected true or false, got ${kindOf(raw[f])}`);
  const id = mapKey || (typeof raw['id'] === 'string' && raw['id']) || fallbackId || '';
  if (id === '') fail('id', 'required (a policy in an array needs its id)');
  const policy: Policy = { ...raw, id };
  const rights = raw['access_rights'];
  if (rights !== undefined && rights !== null) {
    if (!isObject(rights)) fail('access_rights', `expected an object of API id → access, got ${kindOf(rights)}`);
    const filled: [string, AccessDefinition][] = [];
    for (const [apiId, access] of Object.entries(rights as Record<string, unknown>)) {
      if (!isObject(access)) fail(`access_rights.${apiId}`, `expected an object, got ${kindOf(access)}`);
      const a = access as Record<string, unknown>;
      if (a['api_id'] !== undefined && a['api_id'] !== null && typeof a['api_id'] !== 'string')
        fail(`access_rights.${apiId}.api_id`, `expected a string, got ${kindOf(a['api_id'])}`);
      // The map key is the API id Tyk applies the access to; the entry's own api_id may be absent.
      filled.push([apiId, { ...a, api_id: (a['api_id'] as string | undefined) || apiId }]);
    }
    // fromEntries: a `__proto__` API id stays a key.
    policy.access_rights = Object.fromEntries(filled);
  }
  return policy;
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
