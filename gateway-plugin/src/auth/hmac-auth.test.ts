/**
 * HMAC request signatures (`enable_signature_checking`, issue 25) against a real gateway process:
 * a key created through the management API with `hmac_enabled` and its secret, signed requests
 * let through, and Tyk's 400 for every refusal. Compared with Tyk v5.14.0 built from source by
 * `scripts/tyk-diff-before-chain.mjs` (its `hm` rows: alike).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { classicDef, definitionGateway, recordingUpstream, tykBody } from '../gateway/definition-fixtures.js';
import { call } from '../gateway/test-support.js';
import { parseSignedDate } from './hmac-auth.js';

const up = recordingUpstream();
const REFUSED = tykBody('Authorization field missing, malformed or invalid');

interface Signing {
  alg?: string;
  headers?: string[];
  secret?: string;
  key?: string;
  date?: string;
  extra?: Record<string, string>;
}

/** The headers of a request signed as a Tyk client signs it. */
function signed(path: string, s: Signing = {}): Record<string, string> {
  const { alg = 'hmac-sha1', headers = ['date'], secret = 'sekret', key = 'alice', date = new Date().toUTCString(), extra = {} } = s;
  const h: Record<string, string> = { date, ...extra };
  const text = headers.map((n) => (n === '(request-target)' ? `(request-target): get ${path}` : `${n}: ${h[n] ?? ''}`)).join('\n');
  const hash = { 'hmac-sha256': 'sha256', 'hmac-sha512': 'sha512' }[alg] ?? 'sha1';
  const sig = encodeURIComponent(createHmac(hash, secret).update(text).digest('base64'));
  return { ...h, authorization: `Signature keyId="${key}",algorithm="${alg}",headers="${headers.join(' ')}",signature="${sig}"` };
}

describe('HMAC request signatures (Tyk: mw_http_signature_validation.go)', () => {
  it('a signed request with the key secret passes; every other one is 400', async () => {
    const { port, engine } = await definitionGateway({
      'hm.json': classicDef('hm', up.target(), {
        use_keyless: false,
        enable_signature_checking: true,
        hmac_allowed_algorithms: ['hmac-sha1', 'hmac-sha256'],
        hmac_allowed_clock_skew: 5000,
      }),
    });
    try {
      const session = {
        rate: 100,
        per: 1,
        quota_max: -1,
        hmac_enabled: true,
        hmac_string: 'sekret',
        access_rights: { hm: { api_id: 'hm', versions: ['Default'] } },
      };
      const created = await call(port, 'POST', '/svc/keys/alice', { headers: { 'x-svc-authorization': 'test-secret' }, body: JSON.stringify(session) });
      assert.equal(created.status, 200, created.body);
      const get = (headers: Record<string, string>) => call(port, 'GET', '/hm/x', { headers });
      assert.equal((await get(signed('/hm/x'))).status, 200);
      const all = signed('/hm/x', { alg: 'hmac-sha256', headers: ['(request-target)', 'date', 'x-extra'], extra: { 'x-extra': 'v' } });
      assert.equal((await get(all)).status, 200);
      for (const refused of [
        {},
        signed('/hm/x', { secret: 'wrong' }),
        signed('/hm/x', { key: 'nobody' }),
        signed('/hm/x', { alg: 'hmac-sha512' }),
        signed('/hm/x', { date: 'Mon, 01 Jan 2001 00:00:00 GMT' }),
        signed('/hm/x', { date: 'yesterday' }),
        { authorization: 'Signature keyId="alice",foo="x"' },
      ]) {
        const r = await get(refused);
        assert.deepEqual([r.status, r.body], [400, REFUSED], JSON.stringify(refused));
      }
    } finally {
      await engine.stop();
    }
  });

  it("reads dates as Go's time.Parse reads Tyk's two layouts", () => {
    assert.equal(parseSignedDate('Fri, 27 Nov 2026 09:00:00 GMT'), Date.UTC(2026, 10, 27, 9));
    assert.equal(parseSignedDate('fri, 27 nov 2026 9:00:00 UTC'), Date.UTC(2026, 10, 27, 9));
    assert.equal(parseSignedDate('Fri, 27 Nov 2026 10:00:00 +01'), Date.UTC(2026, 10, 27, 9));
    assert.equal(parseSignedDate('Fri, 31 Nov 2026 09:00:00 GMT'), undefined);
    assert.equal(parseSignedDate('Fri, 27 Nov 2026 09:00:00'), undefined);
  });
});
