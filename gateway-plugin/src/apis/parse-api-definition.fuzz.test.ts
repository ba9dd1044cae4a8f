/**
 * Hostile definitions: random JSON, and random mutations of a valid classic and a valid OAS
 * definition (a field replaced by any JSON value, or removed). The parser either returns a
 * well-formed ApiSpec or throws a ConfigError: never another error, never a hang.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ConfigError } from '@svc/engine';
import { NO_REFERENCES } from '../refs/references.js';
import type { ApiSpec } from './api-spec.js';
import { parseApiDefinition } from './parse-api-definition.js';
import { classic, oas } from './test-fixtures.js';

const RUNS = 400;
/** A generous bound on one parse: a hang fails the run instead of stalling the suite. */
const HANG_MS = 2000;

/** What the runs answered: the mutation tests check both outcomes happen (the fuzz reaches the parser's insides). */
const outcomes = { specs: 0, errors: 0 };

async function parseOrConfigError(def: unknown): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the parser did not answer in ${HANG_MS} ms`)), HANG_MS);
  });
  try {
    const spec = await Promise.race([parseApiDefinition(def, NO_REFERENCES, 'apis/fuzz.json'), hang]);
    assertWellFormed(spec);
    outcomes.specs++;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    outcomes.errors++;
    assert.ok(err.message.startsWith('apis/fuzz.json: '), `the error names the file: ${err.message}`);
  } finally {
    clearTimeout(timer);
  }
}

const isStr = (v: unknown): boolean => typeof v === 'string';
const isNum = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isBool = (v: unknown): boolean => typeof v === 'boolean';

function assertWellFormed(s: ApiSpec): void {
  assert.ok(isStr(s.id) && s.id !== '', 'id');
  assert.ok(isStr(s.name) && isStr(s.orgId) && isBool(s.active), 'name, orgId, active');
  assert.ok(s.format === 'classic' || s.format === 'oas', 'format');
  assert.ok(isStr(s.listenPath) && s.listenPath.startsWith('/'), 'listenPath');
  assert.ok(isBool(s.stripListenPath) && isBool(s.keyless) && isBool(s.standardAuth) && isBool(s.stripAuthData) && isBool(s.disableRateLimit), 'flags');
  assert.doesNotThrow(() => new URL(s.targetUrl), 'targetUrl');
  assert.ok(isStr(s.credential.header) && isStr(s.credential.query) && isStr(s.credential.cookie), 'credential');
  assert.ok(isNum(s.globalRateLimit.rate) && isNum(s.globalRateLimit.per), 'globalRateLimit');
  if (s.jwt) {
    const j = s.jwt;
    assert.ok(['rsa', 'hmac', 'ecdsa', ''].includes(j.signingMethod), 'signingMethod');
    assert.ok(isStr(j.source) && j.identityBaseField !== '' && j.policyFieldName !== '' && j.scopeClaimName !== '', 'jwt names');
    assert.ok(j.defaultPolicies.every(isStr) && Object.values(j.scopeToPolicy).every(isStr), 'jwt policies');
    assert.ok(isNum(j.issuedAtSkew) && isNum(j.expiresAtSkew) && isNum(j.notBeforeSkew), 'skews');
  }
  for (const r of s.endpointRateLimits) assert.ok(isStr(r.path) && isStr(r.method) && isNum(r.rate) && isNum(r.per), 'endpoint limit');
  for (const r of s.urlRewrites)
    assert.ok(isStr(r.path) && isStr(r.method) && isStr(r.matchPattern) && isStr(r.rewriteTo) && Array.isArray(r.triggers), 'rewrite');
  for (const t of s.splitToken) assert.ok(isStr(t.path) && isStr(t.method) && isStr(t.tokenUrl), 'split token');
  assert.doesNotThrow(() => structuredClone(s), 'structured-clonable, as it crosses to worker threads');
}

/** Every path (keys and indexes) inside a JSON value. */
function pathsOf(v: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (Array.isArray(v)) v.forEach((x, i) => pathsOf(x, [...prefix, i], out.concat([[...prefix, i]])).forEach((p) => out.push(p)));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) pathsOf(x, [...prefix, k], out).push([...prefix, k]);
  return dedupe(out);
}

function dedupe(paths: (string | number)[][]): (string | number)[][] {
  const seen = new Set<string>();
  return paths.filter((p) => {
    const key = JSON.stringify(p);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

type Mutation = { at: number; value: unknown; remove: boolean };

function mutate(base: Record<string, unknown>, mutations: Mutation[]): unknown {
  const def = structuredClone(base);
  for (const m of mutations) {
    const paths = pathsOf(def);
    if (paths.length === 0) break;
    const path = paths[m.at % paths.length]!;
    let parent: unknown = def;
    for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, unknown>)[key];
    const last = path[path.length - 1]!;
    if (m.remove && !Array.isArray(parent)) delete (parent as Record<string | number, unknown>)[last];
    else (parent as Record<string | number, unknown>)[last] = m.value;
  }
  return def;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  value: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.string(), fc.constantFrom('', '/', 'http://x', '{a}{b}', '1s', 'env://X', '__proto__', 'kvstore://k')),
  remove: fc.boolean(),
});

test('fuzz: random JSON is a spec or a ConfigError', async () => {
  await fc.assert(fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), parseOrConfigError), { numRuns: RUNS });
  await fc.assert(
    fc.asyncProperty(
      fc.dictionary(
        fc.constantFrom('api_id', 'proxy', 'openapi', 'x-svc-api-gateway', 'paths', 'enable_jwt', 'version_data', 'auth_configs'),
        fc.jsonValue({ maxDepth: 4 }),
      ),
      parseOrConfigError,
    ),
    { numRuns: RUNS },
  );
});

test('fuzz: mutations of a valid classic definition are a spec or a ConfigError', async () => {
  outcomes.specs = outcomes.errors = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), (ms) => parseOrConfigError(mutate(classic(), ms))),
    { numRuns: RUNS },
  );
  assert.ok(outcomes.specs > RUNS / 100 && outcomes.errors > RUNS / 100, `both outcomes: ${JSON.stringify(outcomes)}`);
});

test('fuzz: mutations of a valid OAS definition are a spec or a ConfigError', async () => {
  outcomes.specs = outcomes.errors = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), (ms) => parseOrConfigError(mutate(oas(), ms))),
    { numRuns: RUNS },
  );
  assert.ok(outcomes.specs > RUNS / 100 && outcomes.errors > RUNS / 100, `both outcomes: ${JSON.stringify(outcomes)}`);
});

test('fuzz: huge and deep inputs end quickly with an answer', async () => {
  const def = classic();
  def.version_data.versions.Default.extended_paths.rate_limit = Array.from({ length: 20_000 }, (_, i) => ({
    path: `/p/{x}/${i}`,
    method: 'GET',
    rate: 1,
    per: 1,
  }));
  def.proxy.listen_path = '/' + '{'.repeat(100_000);
  await parseOrConfigError(def);
  const per = oas();
  per['x-svc-api-gateway'].upstream.rateLimit.per = '1s'.repeat(100_000);
  await parseOrConfigError(per);
  let deep: unknown = 'x';
  for (let i = 0; i < 10_000; i++) deep = { a: deep };
  const deepDef = classic();
  deepDef.auth_configs = deep;
  await parseOrConfigError(deepDef);
});
