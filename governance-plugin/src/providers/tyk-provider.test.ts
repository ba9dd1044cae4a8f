/**
 * The `tyk` provider against a real Tyk Gateway v5.14.0 (built from source by the peers' set-up;
 * where it is not built, the suite says so and skips): a classic API and a policy from files, an
 * OAS API posted through Tyk's management API. The provider lists each once, the OAS one as its
 * OpenAPI document; a wrong secret is refused without being quoted.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startTyk, tykBinary, tykClassic, tykOas, TYK_SKIP, type TykGateway } from '../testing/tyk.js';
import type { ProvidedApi } from '../wire/api-record.js';
import { GatewayProvider } from './gateway-provider.js';
import { ProviderError } from './provider.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-tyk-provider-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('tyk provider against a real Tyk Gateway', { skip: tykBinary() === undefined ? TYK_SKIP : false }, () => {
  let tyk: TykGateway;
  after(() => tyk?.proc.stop());

  it('lists classic and OAS APIs and policies, each once', { timeout: 180_000 }, async () => {
    tyk = await startTyk(dir, {
      classic: [tykClassic('payments', { proxy: { listen_path: '/pay/', target_url: 'http://127.0.0.1:9/', strip_listen_path: true } })],
      oas: [tykOas('pets', '2')],
      policies: [{ id: 'gold', name: 'Gold tier', rate: 100, per: 1, access_rights: { payments: { api_id: 'payments', versions: ['Default'] } } }],
    });
    const out: ProvidedApi[] = [];
    const n = await new GatewayProvider('tyk-edge', 'tyk', { host: `${tyk.url}/`, auth: tyk.secret }).list(async (a) => void out.push(a));
    assert.equal(n, 3);
    assert.deepEqual(out.map((a) => [a.kind, a.api_id, a.name, a.version, a.base_path]).sort(), [
      ['classic', 'payments', 'payments API', '', '/pay/'],
      ['oas', 'pets', 'pets API', '2', '/pets/'],
      ['policy', 'policy:gold', 'Gold tier', '', ''],
    ]);
    // The OAS API comes as its OpenAPI document, not the classic definition Tyk made of it.
    const pets = JSON.parse(out.find((a) => a.api_id === 'pets')!.definition_json) as Record<string, unknown>;
    assert.equal(pets.openapi, '3.0.3');
    assert.equal((pets['x-tyk-api-gateway'] as { info: { id: string } }).info.id, 'pets');
    // The classic one as Tyk answers it (every field it has, the file's among them).
    const payments = JSON.parse(out.find((a) => a.api_id === 'payments')!.definition_json) as { proxy: { target_url: string }; org_id: string };
    assert.equal(payments.proxy.target_url, 'http://127.0.0.1:9/');
    assert.equal(payments.org_id, 'default');
  });

  it('says a wrong secret was refused, without quoting it', { timeout: 30_000 }, async () => {
    await assert.rejects(
      new GatewayProvider('tyk-edge', 'tyk', { host: tyk.url, auth: 'not-the-secret' }).list(async () => undefined),
      (err: Error) =>
        err instanceof ProviderError && /^tyk-edge: \/tyk\/\S+ refused the credential \(403\): check instances\[\]\.config\.auth$/.test(err.message),
    );
  });
});
