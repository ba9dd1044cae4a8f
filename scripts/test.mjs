#!/usr/bin/env node
// Runs every compiled test (`*/dist/**/*.test.js`) with node's test runner.
// Usage: node scripts/test.mjs [--unit] [--lts] [filter]   (filter: a substring of the test file path)
//   --unit: only the tests that need no real server (see needsServices), and no services.sh.
//   --lts: run them on the current LTS Node that services.sh fetched (SVC_NODE_LTS in
//          .services/env), not on the Node running this script.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const packages = ['engine', 'plugins', 'gateway-plugin', 'governance-plugin', 'examples/custom-plugin'];
const args = process.argv.slice(2);
const unit = args.includes('--unit');
const lts = args.includes('--lts');
const filter = args.find((a) => !a.startsWith('--')) ?? '';

/**
 * The ports of the real servers (the defaults in @svc/engine's test kit): a test that names one
 * in a client's options (`port: 6379`) talks to that server even without asking serviceAddress.
 */
const servicePorts = [...readFileSync(join(root, 'engine/src/testing/services.ts'), 'utf8').matchAll(/SVC_[A-Z_]+: '[^']*?:(\d+)(?:\/[^']*)?'/g)].map(
  (m) => m[1],
);
const namesAServer = new RegExp(`serviceAddress\\(|\\bport(?::| =) (?:${servicePorts.join('|')})\\b`);

/**
 * A test needs the real servers when it, or a module it imports relatively (directly or through
 * other relative imports: a family's test-support re-exporting another's), asks for a server's
 * address (serviceAddress, from @svc/engine's test kit) or names a server's port.
 */
function needsServices(file, seen = new Set()) {
  if (seen.has(file)) return false;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  if (namesAServer.test(text)) return true;
  for (const m of text.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
    const dep = resolve(dirname(file), m[1]);
    if (existsSync(dep) && needsServices(dep, seen)) return true;
  }
  return false;
}

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const files = packages
  .map((p) => join(root, p, 'dist'))
  .filter((d) => existsSync(d))
  .flatMap((d) => walk(d, []))
  .filter((f) => relative(root, f).includes(filter))
  .filter((f) => !unit || !needsServices(f))
  .sort();

if (files.length === 0) {
  console.error(`no test files found${filter ? ` matching "${filter}"` : ''}: run npm run build first`);
  process.exit(1);
}
// The real servers some tests talk to (Prometheus and its Pushgateway): installed and started
// when missing, quick when they run already. SVC_SERVICES=skip leaves them as they are.
if (process.env.SVC_SERVICES !== 'skip' && !unit) {
  const up = spawnSync('bash', [join(root, 'scripts', 'services.sh'), 'up'], { stdio: 'inherit', cwd: root });
  if (up.status !== 0) console.error('scripts/services.sh up failed: the tests that need those servers will fail and say so');
}

/** The Node that runs the tests: this one, or with --lts the LTS binary services.sh fetched. */
function testNode() {
  if (!lts) return process.execPath;
  const env = join(root, '.services', 'env');
  const line = existsSync(env)
    ? readFileSync(env, 'utf8')
        .split('\n')
        .find((l) => l.startsWith('SVC_NODE_LTS='))
    : undefined;
  const bin = line?.slice('SVC_NODE_LTS='.length).trim();
  if (!bin || !existsSync(bin)) {
    console.error('--lts: no SVC_NODE_LTS in .services/env: run scripts/services.sh up (it fetches the LTS Node from the npm registry)');
    process.exit(1);
  }
  const version = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`# the tests below run on Node ${version} (${bin})`);
  return bin;
}

const r = spawnSync(testNode(), ['--test', '--test-concurrency=2', '--test-timeout=300000', ...files], {
  stdio: 'inherit',
  cwd: root,
});
process.exit(r.status ?? 1);
