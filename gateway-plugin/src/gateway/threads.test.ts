/**
 * The gateway's state on worker threads, in a real engine process with `pipeline.threads: 2` and
 * `dispatch: pool` (every batch runs on a worker): a key created through the management API is
 * valid on every thread for the very next request, and a key deleted is refused at once, because
 * each request carries the state version it saw and a worker's replica waits for it. The real
 * `gateway_auth` runs on the workers; a probe processor after it answers with its thread id.
 *
 * The input is `api_gateway` with a source of hand-made parts (a JSON file of a config and
 * ApiSpecs), registered by the test's plugin module; everything else is the engine's.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { apiSpec, call, freePort, gatewayConfig, waitFor } from './test-support.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const engineBin = join(root, 'node_modules/.bin/engine');
const here = fileURLToPath(new URL('.', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-gw-threads-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The test's plugin module: `test_api_gateway` (api_gateway over a JSON file) and `test_thread_probe`. */
const PLUGIN = `
import { readFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { registerInput, registerProcessor, answerMessage, f } from ${JSON.stringify(join(root, 'engine/dist/index.js'))};
import { ApiGatewayInput, apiGatewaySpec } from ${JSON.stringify(join(here, 'api-gateway-input.js'))};
import { MemorySessionStore } from ${JSON.stringify(join(here, '../sessions/memory-store.js'))};
import { GATEWAY_REQUEST } from ${JSON.stringify(join(here, 'request.js'))};
import { gatewayState } from ${JSON.stringify(join(here, 'state.js'))};

const fileSource = {
  async loadConfig(file) { return { config: JSON.parse(readFileSync(file, 'utf8')).config, warnings: [] }; },
  async loadApis(config) { return { apis: JSON.parse(readFileSync(config.baseDir + '/parts.json', 'utf8')).apis, errors: [] }; },
  async loadPolicies() { return { policies: [], errors: [] }; },
  async parseApi() { throw new Error('not in this test'); },
  async createSessions() { return new MemorySessionStore(); },
};

registerInput('test_api_gateway', { summary: 'api_gateway over a JSON file (tests)', config: apiGatewaySpec, factory: (conf, ctx) => new ApiGatewayInput(conf, ctx, fileSource) });

registerProcessor('test_thread_probe', {
  summary: 'answers with the thread it ran on and what the gateway state there says (tests)',
  config: f.object({}),
  factory: () => ({
    async process(batch) {
      for (const msg of batch) {
        const req = msg.ctx.get(GATEWAY_REQUEST);
        const state = gatewayState(req.gateway);
        answerMessage(msg, { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ thread: threadId, version: state.version, seen: req.version, key: req.session?.keyId ?? null })) });
      }
      return [batch];
    },
  }),
});
`;

describe('gateway state on worker threads', () => {
  it('a key created through the management API is valid on every thread at once; deleted, refused at once', async () => {
    const port = await freePort();
    const config = { ...gatewayConfig(port), baseDir: dir };
    writeFileSync(join(dir, 'svc.conf'), JSON.stringify({ config }));
    writeFileSync(join(dir, 'parts.json'), JSON.stringify({ apis: [apiSpec('k', '/k', { keyless: false, standardAuth: true })] }));
    writeFileSync(join(dir, 'plugin.mjs'), PLUGIN);
    writeFileSync(
      join(dir, 'engine.yaml'),
      `
http: { enabled: false }
plugins: [ ${JSON.stringify(join(dir, 'plugin.mjs'))} ]
input:
  test_api_gateway: { conf: ${JSON.stringify(join(dir, 'svc.conf'))} }
pipeline:
  threads: 2
  dispatch: pool
  processors:
    - gateway_auth: {}
    - test_thread_probe: {}
output:
  drop: {}
shutdown_timeout: 10s
`,
    );
    const child = spawn(engineBin, ['-c', join(dir, 'engine.yaml')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      await waitFor(
        () =>
          call(port, 'GET', '/hello').then(
            (r) => r.status === 200,
            () => false,
          ),
        `the gateway to listen (log: ${log})`,
        20_000,
      );
      const auth = { 'x-svc-authorization': 'test-secret' };
      for (let round = 0; round < 3; round++) {
        const session = { access_rights: { k: { api_id: 'k', api_name: 'k', versions: ['Default'] } }, org_id: '' };
        const created = await call(port, 'POST', '/svc/keys/create', { headers: auth, body: JSON.stringify(session) });
        assert.equal(created.status, 200, created.body);
        const key = (JSON.parse(created.body) as { key: string }).key;
        // At once, many in parallel: every one is valid, whichever worker runs it.
        const replies = await Promise.all(Array.from({ length: 24 }, () => call(port, 'GET', '/k/x', { headers: { authorization: key } })));
        const threads = new Set<number>();
        for (const r of replies) {
          assert.equal(r.status, 200, `round ${round}: ${r.status} ${r.body}`);
          const seen = JSON.parse(r.body) as { thread: number; version: number; seen: number; key: string };
          assert.notEqual(seen.thread, 0, 'the processors ran on a worker');
          assert.ok(seen.version >= seen.seen, 'the worker had the version the request saw');
          assert.equal(seen.key, key);
          threads.add(seen.thread);
        }
        const deleted = await call(port, 'DELETE', `/svc/keys/${key}`, { headers: auth });
        assert.equal(deleted.status, 200, deleted.body);
        const refused = await Promise.all(Array.from({ length: 8 }, () => call(port, 'GET', '/k/x', { headers: { authorization: key } })));
        for (const r of refused) assert.equal(r.status, 403, `round ${round}, deleted key: ${r.status} ${r.body}`);
        assert.ok(threads.size >= 1);
      }
      child.kill('SIGINT');
      assert.equal(await exited, 0, log);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
