/**
 * The `svc` provider against a management API that misbehaves (a local HTTP server standing in
 * for a broken gateway): garbage, the wrong shape, a refused secret, nobody listening. Each is a
 * ProviderError that names the provider and never the secret; entries without an id are skipped.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { freePort } from '@svc/engine/testing';
import type { ProvidedApi } from '../wire/api-record.js';
import { ProviderError } from './provider.js';
import { GatewayProvider } from './gateway-provider.js';

const SECRET = 'gateway-secret-value';
let server: Server;
let base = '';
const answers: Record<string, { status: number; body: string }> = {};

before(async () => {
  server = createServer((req, res) => {
    const a = req.headers['x-svc-authorization'] === SECRET ? answers[req.url ?? ''] : { status: 403, body: '{"message":"Forbidden"}' };
    res.writeHead(a?.status ?? 404, { 'content-type': 'application/json' }).end(a?.body ?? '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => server.close());

async function list(host = base, auth = SECRET): Promise<ProvidedApi[]> {
  const out: ProvidedApi[] = [];
  await new GatewayProvider('edge', 'svc', { host, auth }).list(async (a) => void out.push(a));
  return out;
}

describe('svc provider', () => {
  it('lists APIs and policies, skipping entries it cannot identify', async () => {
    answers['/svc/apis'] = {
      status: 200,
      body: JSON.stringify([{ api_id: 'a', name: 'A', proxy: { listen_path: '/a/' } }, 42, { name: 'no id' }]),
    };
    answers['/svc/policies'] = { status: 200, body: JSON.stringify([{ id: 'gold', name: 'Gold' }, 'x']) };
    assert.deepEqual(
      (await list()).map((a) => `${a.kind}:${a.api_id}`),
      ['classic:a', 'policy:policy:gold'],
    );
  });

  it('takes an OAS API (is_oas in the classic form /svc/apis answers) as its document from /svc/apis/oas', async () => {
    const doc = {
      openapi: '3.0.3',
      info: { title: 'O', version: '2' },
      'x-svc-api-gateway': { info: { id: 'o', name: 'O' }, server: { listenPath: { value: '/o/' } } },
    };
    answers['/svc/apis'] = {
      status: 200,
      body: JSON.stringify([
        { api_id: 'a', name: 'A', proxy: { listen_path: '/a/' } },
        { api_id: 'o', name: 'O', is_oas: true, proxy: { listen_path: '/o/' } },
        { api_id: 'gone', is_oas: true },
      ]),
    };
    answers['/svc/apis/oas'] = { status: 200, body: JSON.stringify([doc]) };
    answers['/svc/policies'] = { status: 200, body: '[]' };
    const got = await list();
    assert.deepEqual(
      got.map((a) => `${a.kind}:${a.api_id}:${a.base_path}`),
      ['classic:a:/a/', 'oas:o:/o/'],
    );
    assert.deepEqual(JSON.parse(got[1]!.definition_json), doc);
  });

  for (const [what, answer, message] of [
    ['garbage', { status: 200, body: '<html>oops' }, /^edge: \/svc\/apis did not answer JSON$/],
    ['the wrong shape', { status: 200, body: '{"apis": []}' }, /^edge: \/svc\/apis did not answer a JSON array$/],
    ['a server error', { status: 500, body: '' }, /^edge: \/svc\/apis answered 500$/],
  ] as const) {
    it(`reports ${what} as this provider's error`, async () => {
      answers['/svc/apis'] = answer;
      answers['/svc/policies'] = { status: 200, body: '[]' };
      await assert.rejects(list(), (err: Error) => err instanceof ProviderError && message.test(err.message));
    });
  }

  it('says the secret was refused without quoting it, and names an unreachable host', async () => {
    await assert.rejects(
      list(base, 'wrong-secret'),
      (err: Error) => /refused the credential \(403\): check instances\[\]\.config\.auth/.test(err.message) && !err.message.includes('wrong-secret'),
    );
    const nobody = `http://127.0.0.1:${await freePort()}`;
    await assert.rejects(
      list(nobody),
      (err: Error) => err instanceof ProviderError && err.message.startsWith(`edge: cannot reach ${nobody}`) && !err.message.includes(SECRET),
    );
  });
});
