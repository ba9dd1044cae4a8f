/**
 * loadApis with the real ReferenceResolver: references in any string field of a definition are
 * resolved when it loads (docs/spec/gateway.md, external references, rule 1, 3 and 5), from the environment, svc.conf secrets
 * and a kvstore (the Consul double: no real Consul can be installed here).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsulDouble } from '../refs/consul-double.js';
import { ReferenceResolver } from '../refs/resolver.js';
import { loadApis } from './load-apis.js';
import { classic, oas } from './test-fixtures.js';

test('definitions load with env://, SVC_SECRET_, secrets:// and kvstore:// values in their string fields', async () => {
  const consul = new ConsulDouble();
  const address = await consul.start();
  consul.keys.set('apis/orders-upstream', 'http://127.0.0.1:9555');
  const dir = await mkdtemp(join(tmpdir(), 'svc-apis-refs-'));
  const refs = new ReferenceResolver(
    {
      secrets: { 'jwt-key': 'c2VjcmV0' },
      kv: {
        kvstore: {
          address,
          scheme: 'http',
          datacenter: '',
          http_auth: { username: '', password: '' },
          wait_time: 0,
          token: '',
          tls_config: { address: '', ca_path: '', ca_file: '', cert_file: '', key_file: '', insecure_skip_verify: false },
        },
      },
    },
    undefined,
    {
      env: { PETS_TARGET: 'http://127.0.0.1:9444/v2', SVC_SECRET_PETS_PATH: '/pets-from-env/' },
    },
  );
  try {
    const pets = classic();
    pets.proxy.target_url = 'env://PETS_TARGET';
    pets.proxy.listen_path = 'env://PETS_PATH';
    pets.jwt_source = 'secrets://jwt-key';
    const orders = oas();
    orders['x-svc-api-gateway'].upstream.url = 'kvstore://apis/orders-upstream';
    await writeFile(join(dir, 'pets.json'), JSON.stringify(pets));
    await writeFile(join(dir, 'orders.json'), JSON.stringify(orders));
    const { apis, errors } = await loadApis(dir, refs);
    assert.deepEqual(errors, []);
    const [o, p] = apis;
    assert.equal(p!.targetUrl, 'http://127.0.0.1:9444/v2');
    assert.equal(p!.listenPath, '/pets-from-env/', 'a listen path takes SVC_SECRET_{KEY} (the pre-5.3 convention)');
    assert.equal(p!.jwt?.source, 'c2VjcmV0');
    assert.equal(o!.targetUrl, 'http://127.0.0.1:9555');
    assert.deepEqual(
      consul.requests.map((r) => r.path),
      ['/v1/kv/apis/orders-upstream'],
    );
  } finally {
    await refs.close();
    await consul.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a reference that resolves to nothing: that API is an error naming the field, the others load', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-apis-refs-'));
  const refs = new ReferenceResolver({ secrets: {}, kv: {} }, undefined, { env: {} });
  try {
    const pets = classic();
    pets.proxy.target_url = 'env://UNSET_TARGET';
    await writeFile(join(dir, 'a.json'), JSON.stringify(pets));
    await writeFile(join(dir, 'b.json'), JSON.stringify(oas()));
    const { apis, errors } = await loadApis(dir, refs);
    assert.deepEqual(
      apis.map((a) => a.id),
      ['orders'],
    );
    assert.equal(
      errors[0]!.message,
      `${join(dir, 'a.json')}: proxy.target_url: required (a non-empty string; an external reference that cannot be resolved reads as empty)`,
    );
  } finally {
    await refs.close();
    await rm(dir, { recursive: true, force: true });
  }
});
