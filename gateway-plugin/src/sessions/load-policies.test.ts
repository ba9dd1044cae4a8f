import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GatewayConfig } from '../conf/gateway-config.js';
import { loadPolicies } from './load-policies.js';
import { gatewayConfig } from '../testing/fixtures.js';

function config(dir: string, policies: Partial<GatewayConfig['policies']>): GatewayConfig {
  return gatewayConfig({ hash_keys: true, baseDir: dir, policies: { ...gatewayConfig().policies, ...policies } });
}

async function inTemp(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-policies-'));
  try {
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test("policy_record_name: Tyk's policies.json, id → policy; the key wins over the policy's id; access_rights api_id filled from its key", async () => {
  await inTemp(async (dir) => {
    const file = join(dir, 'policies.json');
    await writeFile(
      file,
      JSON.stringify({
        gold: { id: 'ignored', rate: 100, per: 60, access_rights: { petstore: { versions: ['Default'] } }, partitions: { per_api: true } },
        silver: { rate: 10, per: 1, access_rights: { petstore: { api_id: 'petstore', limit: { rate: 5, per: 1 } } } },
      }),
    );
    const { policies, errors } = await loadPolicies(config(dir, { policy_record_name: file }));
    assert.deepEqual(errors, []);
    assert.deepEqual(policies, [
      { id: 'gold', rate: 100, per: 60, access_rights: { petstore: { api_id: 'petstore', versions: ['Default'] } }, partitions: { per_api: true } },
      { id: 'silver', rate: 10, per: 1, access_rights: { petstore: { api_id: 'petstore', limit: { rate: 5, per: 1 } } } },
    ]);
  });
});

test('policy_record_name as an array: each needs its id', async () => {
  await inTemp(async (dir) => {
    const file = join(dir, 'policies.json');
    await writeFile(file, JSON.stringify([{ id: 'a', rate: 1, per: 1 }, { rate: 2 }, 'x']));
    const { policies, errors } = await loadPolicies(config(dir, { policy_source: '', policy_record_name: file }));
    assert.deepEqual(
      policies.map((p) => p.id),
      ['a'],
    );
    assert.deepEqual(
      errors.map((e) => e.message),
      [`${file}: [1].id: required (a policy in an array needs its id)`, `${file}: [2]: expected a policy object, got a string`],
    );
  });
});

test('policy_path: a folder of JSON files, one policy or a map each, by name; broken files are errors naming them, the rest load; a repeated id: the first wins', async () => {
  await inTemp(async (dir) => {
    const folder = join(dir, 'policies');
    await mkdir(folder);
    await writeFile(join(folder, 'a-gold.json'), JSON.stringify({ id: 'gold', rate: 100, per: 60 }));
    await writeFile(join(folder, 'b-bronze.json'), JSON.stringify({ rate: 1, per: 1 }));
    await writeFile(join(folder, 'c-map.json'), JSON.stringify({ p1: { rate: 1, per: 1 }, p2: { rate: 2, per: 1, active: 'yes' } }));
    await writeFile(join(folder, 'd-broken.json'), '{"id": "x", "rate": }');
    await writeFile(join(folder, 'e-dup.json'), JSON.stringify({ id: 'gold', rate: 1, per: 1 }));
    await writeFile(join(folder, 'f-wrong.json'), JSON.stringify({ id: 'w', per: '60' }));
    await writeFile(join(folder, 'notes.txt'), 'x');
    const { policies, errors } = await loadPolicies(config(dir, { policy_path: folder, policy_record_name: join(dir, 'unused.json') }));
    assert.deepEqual(
      policies.map((p) => [p.id, p.rate]),
      [
        ['gold', 100],
        ['b-bronze', 1],
        ['p1', 1],
      ],
    );
    assert.deepEqual(
      errors.map((e) => e.file),
      ['c-map.json', 'd-broken.json', 'f-wrong.json', 'e-dup.json'].map((n) => join(folder, n)),
    );
    assert.equal(errors[0]!.message, `${join(folder, 'c-map.json')}: p2.active: expected true or false, got a string`);
    assert.match(errors[1]!.message, /d-broken\.json:1:21 invalid JSON: /);
    assert.equal(errors[2]!.message, `${join(folder, 'f-wrong.json')}: per: expected a number, got a string`);
    assert.match(errors[3]!.message, /e-dup\.json: gold: the policy id "gold" is already loaded from .*a-gold\.json/);
  });
});

test('no policy files configured: none, no error; a missing file or folder, and an unsupported source: an error each', async () => {
  await inTemp(async (dir) => {
    assert.deepEqual(await loadPolicies(config(dir, {})), { policies: [], errors: [] });
    const missing = await loadPolicies(config(dir, { policy_record_name: join(dir, 'nope.json') }));
    assert.match(missing.errors[0]!.message, /nope\.json: cannot read the policy file: ENOENT/);
    const noFolder = await loadPolicies(config(dir, { policy_path: join(dir, 'nope') }));
    assert.match(noFolder.errors[0]!.message, /nope: cannot read the policies folder \(policies\.policy_path\): ENOENT/);
    const service = await loadPolicies(config(dir, { policy_source: 'service' }));
    assert.equal(service.errors[0]!.message, 'policies.policy_source: "service" is not supported: use "file" with policy_path or policy_record_name');
  });
});
