/**
 * Routing by Host (svc.conf `enable_custom_domains`, an API's `domain` / OAS
 * `server.customDomain`) on a real gateway process, as Tyk v5.14.0's gorilla/mux Host routes do:
 * compared with Tyk built from source by `scripts/tyk-diff-before-chain.mjs` (its `dom*` rows).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classicDef, definitionGateway, recordingUpstream, type Def } from './definition-fixtures.js';
import { call } from './test-support.js';

const up = recordingUpstream();

/** An API on `/d/` in front of `<upstream>/<id>`, with `more` fields. */
const on = (id: string, more: Def = {}, listen = '/d/'): Def => ({
  ...classicDef(id, up.target(), more),
  proxy: { listen_path: listen, target_url: `${up.target()}/${id}`, strip_listen_path: true },
});

async function servedBy(port: number, path: string, host?: string): Promise<string> {
  const before = up.seen.length;
  const r = await call(port, 'GET', path, { headers: host === undefined ? {} : { host } });
  if (r.status !== 200) return `${r.status}`;
  return up.seen[before]!.line.split('/')[1]!;
}

describe("custom domains (Tyk's loadHTTPService: router.Host(domain))", () => {
  it('an API with a domain answers on that host only; APIs without one on any host', async () => {
    const defs = {
      'd1.json': on('d1', { domain: 'a.example' }),
      'd2.json': on('d2', { domain: '{sub}.b.example' }),
      'd3.json': on('d3'),
      'd4.json': on('d4', { domain: 'off.example', domain_disabled: true }, '/dd/'),
      'd5.json': on('d5', { domain: 'p.example:8080' }),
      'd6.json': on('d6', { domain: '{n:[0-9]+}.c.example' }),
    };
    const { port, engine } = await definitionGateway(defs, { enable_custom_domains: true });
    try {
      const cases: Array<[string, string | undefined, string]> = [
        ['/d/x', 'a.example', 'd1'],
        ['/d/x', 'a.example:1234', 'd1'],
        ['/d/x', 'A.EXAMPLE', 'd3'],
        ['/d/x', 'x.b.example', 'd2'],
        ['/d/x', 'y.z.b.example', 'd3'],
        ['/d/x', 'p.example:8080', 'd5'],
        ['/d/x', 'p.example', 'd3'],
        ['/d/x', '12.c.example', 'd6'],
        ['/d/x', 'ab.c.example', 'd3'],
        ['/dd/x', 'elsewhere.example', 'd4'],
      ];
      for (const [path, host, api] of cases) assert.equal(await servedBy(port, path, host), api, `${path} on ${host}`);
    } finally {
      await engine.stop();
    }
    // Without enable_custom_domains the domains are not read; svc.conf's `hostname` (Tyk's HostName)
    // restricts every API then (with custom domains: those without a domain).
    const plain = await definitionGateway(
      { 'd1.json': on('d1', { domain: 'a.example' }), 'd7.json': on('d7', { domain: 'z.example' }, '/e/') },
      { hostname: 'gw.example' },
    );
    try {
      assert.equal(await servedBy(plain.port, '/d/x', 'gw.example'), 'd1');
      assert.equal(await servedBy(plain.port, '/e/x', 'gw.example:8080'), 'd7');
      assert.equal(await servedBy(plain.port, '/d/x', 'a.example'), '404');
    } finally {
      await plain.engine.stop();
    }
  });
});
