// The Tyk Gateway peer (v5.14.0, built from source: bench/peers.mjs or /work/shared/peers) run beside
// the svc gateway on the same definitions: the config folder both gateways read (Tyk's layout), the
// config Tyk needs to run alone on loopback, and starting and stopping a gateway process. The
// side-by-side scripts (scripts/tyk-diff-*.mjs) and the gateway benchmarks (bench/gateway*.mjs)
// use it.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { join } from 'node:path';

/** Where the scripts find Tyk: TYK_BIN and TYK_TEMPLATES, else where bench/peers.mjs builds it. */
export const TYK_BIN = process.env.TYK_BIN || '/tmp/peers/bin/tyk';
export const TYK_TEMPLATES = process.env.TYK_TEMPLATES || '/tmp/peers/tyk-templates';

/**
 * A gateway's config folder `dir`, made afresh: apps/<id>.json for each of `apis`, the policies
 * file, and the gateway config `conf` (tyk.conf for `name` tyk, else svc.conf) pointing at both.
 * Returns the config file's path.
 */
export function gatewayFolder(dir, name, apis, conf, policies = {}) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'apps'), { recursive: true });
  for (const [id, def] of Object.entries(apis)) writeFileSync(join(dir, 'apps', `${id}.json`), JSON.stringify(def));
  writeFileSync(join(dir, 'policies.json'), JSON.stringify(policies, null, 2));
  const file = join(dir, name === 'tyk' ? 'tyk.conf' : 'svc.conf');
  writeFileSync(
    file,
    JSON.stringify({ ...conf, app_path: join(dir, 'apps'), policies: { policy_source: 'file', policy_record_name: join(dir, 'policies.json') } }, null, 2),
  );
  return file;
}

/**
 * What Tyk's config needs to run on its own on loopback: `port`, its error `templates`, its keys
 * in Redis database `database` on 127.0.0.1:6379 (Tyk cannot run without Redis: give each run a
 * database of its own), no analytics and no dashboard; `more` adds or overrides fields.
 */
export function tykConf({ port, templates = TYK_TEMPLATES, database, ...more }) {
  return {
    listen_address: '127.0.0.1',
    listen_port: port,
    template_path: templates,
    use_db_app_configs: false,
    storage: { type: 'redis', host: '127.0.0.1', port: 6379, database },
    enable_analytics: false,
    ...more,
  };
}

/**
 * Starts a gateway process (`bin` with `args`: Tyk, or the engine), keeping what it prints for
 * `logs()`. `stop()` ends it with SIGINT (SIGKILL after 5 s) and resolves once it exited.
 */
export function startGateway(bin, args) {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    child,
    logs: () => out,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGINT');
        const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(kill);
      }
    },
  };
}

/** One management call to Tyk on loopback `port`: `status body`, or the error's message. */
function tykManagement(port, secret, method, path, body) {
  return new Promise((resolve) => {
    const headers = { 'x-tyk-authorization': secret, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve(`${res.statusCode} ${text}`));
    });
    req.on('error', (e) => resolve(e.message));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/**
 * Tyk reads OAS definitions from app_path only beside a classic one: each of `oas` is posted
 * through its management API (/tyk/apis/oas), then the group reloaded, and 3 s given to it.
 * Resolves with Tyk's answer to each post (`status body`).
 */
export async function addTykOasApis(port, secret, oas) {
  const answers = [];
  for (const d of oas) answers.push(await tykManagement(port, secret, 'POST', '/tyk/apis/oas', d));
  await tykManagement(port, secret, 'GET', '/tyk/reload/group');
  await new Promise((r) => setTimeout(r, 3000));
  return answers;
}
