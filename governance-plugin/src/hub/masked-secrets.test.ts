/**
 * What GET /api/apis/{id}/ shows of definitions planted with secrets, on a real hub process: a
 * classic and an OAS definition (test-fixtures/planted-secrets), each secret a distinct
 * `PLANTED-…` marker, synced through an agent's stream. No marker may appear anywhere in the
 * hub's answers, and every other value must be shown as stored.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '@svc/engine/testing';
import { agentCredentials, syncStream, until } from '../testing/agent-stand-in.js';
import { writeHubYaml } from '../testing/fixtures.js';
import { adminKey, rest } from '../testing/hub-client.js';
import { engine } from '../testing/processes.js';

const FIXTURES = fileURLToPath(new URL('../../test-fixtures/planted-secrets/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-hub-masked-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Every string of a JSON value with its path. */
function strings(value: unknown, path = '', out = new Map<string, string>()): Map<string, string> {
  if (typeof value === 'string') out.set(path, value);
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) strings(v, `${path}/${k}`, out);
  return out;
}

describe('secrets planted in API definitions', () => {
  it('are masked in the REST answers, classic and OAS, and nothing else is changed', async () => {
    const [httpPort, grpcPort] = await Promise.all([freePort(), freePort()]);
    const hub = engine(['hub', '-c', writeHubYaml(dir, httpPort, grpcPort)], { cwd: dir });
    const base = `http://127.0.0.1:${httpPort}`;
    const oneTime = (await hub.waitFor(/admin password \(shown once; change it at first login\): (\S+)/))[1]!;
    await hub.waitFor(/hub listening/);
    const s = { close: () => undefined as unknown };
    try {
      const key = await adminKey(base, oneTime);
      const { token, license } = await agentCredentials(base, key, 'planter');
      const stream = syncStream(grpcPort, token, license);
      s.close = stream.close;
      stream.call.write({ register: { agent_version: 'test', providers: [] } });
      await until(() => stream.got.some((m) => m.registered), 'registered');
      const sync = await rest<{ id: string }>(base, 'POST', '/api/sync/', { key });
      await until(() => stream.got.some((m) => m.sync_request?.sync_id === sync.body.id), 'the sync request');
      const planted = { classic: readFileSync(join(FIXTURES, 'classic.json'), 'utf8'), oas: readFileSync(join(FIXTURES, 'oas.json'), 'utf8') };
      for (const [kind, text] of Object.entries(planted))
        stream.call.write({
          api: {
            sync_id: sync.body.id,
            provider_name: 'gw',
            provider_type: 'svc',
            api_id: kind,
            name: kind,
            kind,
            version: '',
            base_path: '/',
            definition_json: text,
            updated_at_unix_ms: 0,
          },
        });
      stream.call.write({
        complete: { sync_id: sync.body.id, api_count: 2, providers: [{ provider_name: 'gw', api_count: 2, error: '' }], trigger: 'resync' },
      });
      const listed = async () => (await rest<Array<{ id: string; api_id: string }>>(base, 'GET', '/api/apis/', { key })).body;
      await until(async () => (await listed()).length === 2, 'both APIs stored');

      for (const { id, api_id } of await listed()) {
        const r = await fetch(`${base}/api/apis/${id}/`, { headers: { 'x-api-key': key } });
        const text = await r.text();
        assert.equal(r.status, 200, text);
        assert.deepEqual(text.match(/PLANTED-[A-Z]\d+/g) ?? [], [], `${api_id}: no planted secret in the answer`);
        const stored = strings(JSON.parse(planted[api_id as keyof typeof planted]));
        const shown = strings((JSON.parse(text) as { definition: unknown }).definition);
        assert.deepEqual([...shown.keys()], [...stored.keys()], `${api_id}: the same fields`);
        let masked = 0;
        for (const [path, value] of stored) {
          if (value.includes('PLANTED-')) {
            assert.match(shown.get(path)!, /xxxxx/, `${api_id} ${path}`);
            masked++;
          } else assert.equal(shown.get(path), value, `${api_id} ${path}: not a secret, shown as stored`);
        }
        assert.equal(masked, (planted[api_id as keyof typeof planted].match(/PLANTED-/g) ?? []).length);
      }
      // What the target URL shows: where it goes, not its key.
      const classic = (await listed()).find((a) => a.api_id === 'classic')!;
      const def = (await rest<{ definition: { proxy: { target_url: string } } }>(base, 'GET', `/api/apis/${classic.id}/`, { key })).body.definition;
      assert.equal(def.proxy.target_url, 'http://upstream.internal:8080/v1?api_key=xxxxx&region=eu');
    } finally {
      s.close();
      await hub.stop();
    }
  });
});
