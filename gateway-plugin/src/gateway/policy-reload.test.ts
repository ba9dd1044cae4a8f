/**
 * `/svc/reload` with a broken policy file, in a real engine with a real gateway (issue 31, item
 * 3): the policies the broken file held before are kept (as Tyk keeps its previous set), the other
 * files reload, the reload answers with the error (Tyk's ok, the error its message), logged once, and JWT requests whose
 * policy came from the broken file still pass. With two processes, every process keeps the last good
 * set, a child started after the file broke (replacing a killed one) too, and the error is logged once.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { nowS, signJwt } from '../auth/jwt-support.test-helpers.js';
import { childPids, runGateway, writeGateway, type EngineRun } from './engine-run.js';
import { call, freePort, gatewayConfig, upstreamForFile, waitFor } from './test-support.js';

const SECRET = 'policy-reload-secret';
const auth = { 'x-svc-authorization': 'test-secret' };
const upstream = http.createServer((req, res) => res.end(`up:${req.url}`));
const served = upstreamForFile(upstream);

const policy = (id: string) => ({ id, name: id, org_id: 'o', rate: 1000, per: 1, quota_max: -1, access_rights: { j: { api_id: 'j', versions: ['Default'] } } });

/** A gateway with one JWT HS256 API (`pol` claim → policy) and the policies as `policies` says (`input`: more api_gateway fields). */
async function gateway(dir: string, policies: Record<string, string>, input?: string): Promise<{ port: number; engine: EngineRun }> {
  const port = await freePort();
  writeGateway(dir, gatewayConfig(port), []);
  const conf = JSON.parse(readFileSync(join(dir, 'svc.conf'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(dir, 'svc.conf'), JSON.stringify({ ...conf, policies: { policy_source: 'file', ...policies } }));
  writeFileSync(
    join(dir, 'apps', 'j.json'),
    JSON.stringify({
      api_id: 'j',
      name: 'j',
      org_id: 'o',
      active: true,
      enable_jwt: true,
      jwt_signing_method: 'hmac',
      jwt_source: Buffer.from(SECRET).toString('base64'),
      jwt_identity_base_field: 'sub',
      jwt_policy_field_name: 'pol',
      proxy: { listen_path: '/j/', target_url: served.url(), strip_listen_path: true },
      version_data: { not_versioned: true, versions: { Default: { name: 'Default' } } },
    }),
  );
  const rest = 'pipeline: { threads: 1, processors: [ { gateway: {} } ] }\noutput:\n  gateway_proxy: {}';
  return { port, engine: await runGateway(dir, port, rest, input ? { input } : {}) };
}

let users = 0;
/** A request with a fresh identity (no session from before) under policy `pol`. */
function jwtCall(port: number, pol: string) {
  const token = signJwt('HS256', { sub: `user-${++users}`, pol, iat: nowS(), exp: nowS() + 600 }, Buffer.from(SECRET));
  return call(port, 'GET', '/j/x', { headers: { authorization: `Bearer ${token}` } });
}

describe('a broken policy file on reload', () => {
  it('a truncated policies.json: its previous policies are kept, the reload answers the error, logged once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-gw-pol-'));
    const record = join(dir, 'policies.json');
    writeFileSync(record, JSON.stringify({ gold: policy('gold') }));
    const { port, engine } = await gateway(dir, { policy_record_name: record });
    try {
      assert.equal((await jwtCall(port, 'gold')).status, 200);
      const text = readFileSync(record, 'utf8');
      writeFileSync(record, text.slice(0, text.length / 2));
      // Tyk's ok, with what was refused as its message.
      const r = await call(port, 'GET', '/svc/reload', { headers: auth });
      assert.equal(r.status, 200, r.body);
      const answer = JSON.parse(r.body) as { status: string; message: string };
      assert.ok(answer.message.includes(record) && answer.message.includes('previous policies are kept'), answer.message);
      const j = await jwtCall(port, 'gold');
      assert.equal(j.status, 200, j.body);
      assert.equal(j.body, 'up:/x');
      const errors = engine
        .log()
        .split('\n')
        .filter((l) => l.includes('level=error'));
      assert.equal(errors.length, 1, `the error once in the log:\n${engine.log()}`);
      assert.ok(errors[0]!.includes(record), errors[0]);
    } finally {
      await engine.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('two processes: a truncated policies.json keeps the last good set in every process, a child started since too; the error logged once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-gw-pol-'));
    const record = join(dir, 'policies.json');
    writeFileSync(record, JSON.stringify({ gold: policy('gold') }));
    const { port, engine } = await gateway(dir, { policy_record_name: record }, 'processes: 2');
    const statuses = async (n: number) => (await Promise.all(Array.from({ length: n }, () => jwtCall(port, 'gold')))).map((r) => r.status);
    const all200 = (n: number) => Array.from({ length: n }, () => 200);
    try {
      await waitFor(() => childPids(engine).length === 2, 'both children to serve', 30_000);
      assert.deepEqual(await statuses(16), all200(16));
      const text = readFileSync(record, 'utf8');
      writeFileSync(record, text.slice(0, text.length / 2));
      const r = await call(port, 'GET', '/svc/reload', { headers: auth });
      assert.ok(r.body.includes('previous policies are kept'), r.body);
      assert.deepEqual(await statuses(16), all200(16), 'after the reload');
      // A child that starts now (replacing a killed one) finds the file broken: it serves the others' set.
      process.kill(childPids(engine)[0]!, 'SIGKILL');
      await waitFor(() => childPids(engine).length === 3, 'a new child', 30_000);
      assert.deepEqual(await statuses(24), all200(24), `with the new child:\n${engine.log()}`);
      const errors = engine
        .log()
        .split('\n')
        .filter((l) => l.includes('level=error') && l.includes(record));
      assert.equal(errors.length, 1, `the error once in the log:\n${engine.log()}`);
    } finally {
      await engine.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a broken file in policy_path: its policies are kept, the other files reload', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-gw-pol-'));
    const folder = join(dir, 'policies');
    mkdirSync(folder);
    writeFileSync(join(folder, 'gold.json'), JSON.stringify(policy('gold')));
    writeFileSync(join(folder, 'silver.json'), JSON.stringify(policy('silver')));
    const { port, engine } = await gateway(dir, { policy_path: folder });
    try {
      assert.equal((await jwtCall(port, 'silver')).status, 200);
      writeFileSync(join(folder, 'silver.json'), '{"id": "silver", "rate": ');
      writeFileSync(join(folder, 'bronze.json'), JSON.stringify(policy('bronze')));
      const r = await call(port, 'GET', '/svc/reload', { headers: auth });
      assert.equal(r.status, 200, r.body);
      assert.ok(r.body.includes('silver.json'), r.body);
      for (const pol of ['gold', 'silver', 'bronze']) {
        const j = await jwtCall(port, pol);
        assert.equal(j.status, 200, `${pol}: ${j.status} ${j.body}`);
      }
      // Fixed: the reload is clean again.
      writeFileSync(join(folder, 'silver.json'), JSON.stringify(policy('silver')));
      assert.equal((await call(port, 'GET', '/svc/reload', { headers: auth })).body, '{"status":"ok","message":""}\n');
    } finally {
      await engine.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
