/** Which client certificate goes to an upstream host (Tyk's getCertificateIDForHost), for hosts a client may name. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { certificateIdForHost } from './upstream-certificates.js';

describe('certificateIdForHost', () => {
  const map = { '*': 'all.pem', '*.example.com': 'wild.pem', 'api.example.com': 'api.pem', 'api.example.com:8443': 'port.pem' };

  it("Tyk's order: the host as written, then without its port, then *.domain, then *", () => {
    assert.equal(certificateIdForHost('api.example.com:8443', map), 'port.pem');
    assert.equal(certificateIdForHost('api.example.com:9443', map), 'api.pem');
    assert.equal(certificateIdForHost('other.example.com', map), 'wild.pem');
    assert.equal(certificateIdForHost('elsewhere', map), 'all.pem');
    assert.equal(certificateIdForHost('elsewhere', {}), '');
  });

  it("a host named like Object.prototype's members is an ordinary host", () => {
    for (const host of ['__proto__', 'constructor', 'toString', 'hasOwnProperty:443']) {
      assert.equal(certificateIdForHost(host, map), 'all.pem', host);
      assert.equal(certificateIdForHost(host, {}), '', host);
    }
  });
});
