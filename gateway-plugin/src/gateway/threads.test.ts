/**
 * The gateway's state on worker threads, in a real engine process with `pipeline.threads: 2` and
 * `dispatch: pool` (every batch runs on a worker): a key created through the management API is
 * valid on every thread for the very next request, and a key deleted is refused at once, because
 * each request carries the state version it saw and a worker's replica waits for it. The real
 * `gateway_auth` runs on the workers; a probe processor after it answers with its thread id.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runGateway, writeGateway } from './engine-run.js';
import { apiSpec, call, freePort, gatewayConfig } from './test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-gw-threads-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('gateway state on worker threads', () => {
  it('a key created through the management API is valid on every thread at once; deleted, refused at once', async () => {
    const port = await freePort();
    writeGateway(dir, gatewayConfig(port), [apiSpec('k', '/k', { keyless: false, standardAuth: true })]);
    const engine = await runGateway(
      dir,
      port,
      `pipeline:
  threads: 2
  dispatch: pool
  processors:
    - gateway:
        after_rewrite: [ test_thread_probe: {} ]
output:
  drop: {}`,
    );
    const auth = { 'x-svc-authorization': 'test-secret' };
    for (let round = 0; round < 3; round++) {
      const session = { access_rights: { k: { api_id: 'k', api_name: 'k', versions: ['Default'] } }, org_id: '' };
      const created = await call(port, 'POST', '/svc/keys/create', { headers: auth, body: JSON.stringify(session) });
      assert.equal(created.status, 200, created.body);
      const key = (JSON.parse(created.body) as { key: string }).key;
      // At once, many in parallel: every one is valid, whichever worker runs it.
      const replies = await Promise.all(Array.from({ length: 24 }, () => call(port, 'GET', '/k/x', { headers: { authorization: key } })));
      for (const r of replies) {
        assert.equal(r.status, 200, `round ${round}: ${r.status} ${r.body}`);
        const seen = JSON.parse(r.body) as { thread: number; version: number; seen: number; key: string };
        assert.notEqual(seen.thread, 0, 'the processors ran on a worker');
        assert.ok(seen.version >= seen.seen, 'the worker had the version the request saw');
        assert.equal(seen.key, key);
      }
      const deleted = await call(port, 'DELETE', `/svc/keys/${key}`, { headers: auth });
      assert.equal(deleted.status, 200, deleted.body);
      const refused = await Promise.all(Array.from({ length: 8 }, () => call(port, 'GET', '/k/x', { headers: { authorization: key } })));
      for (const r of refused) assert.equal(r.status, 403, `round ${round}, deleted key: ${r.status} ${r.body}`);
    }
    assert.equal(await engine.stop(), 0, engine.log());
  });
});
