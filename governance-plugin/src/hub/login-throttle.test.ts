/** How long an address waits after failed passwords, and what counts as one client. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LoginThrottle, clientOf } from './login-throttle.js';

describe('login throttle', () => {
  it('lets ten failures through, then makes that address alone wait, doubling, up to 15 min', () => {
    const t = new LoginThrottle();
    const now = 1_000_000;
    for (let i = 0; i < 9; i++) t.failed('10.0.0.1', now);
    assert.equal(t.retryAfter('10.0.0.1', now), 0);
    t.failed('10.0.0.1', now);
    assert.equal(t.retryAfter('10.0.0.1', now), 15);
    assert.equal(t.retryAfter('10.0.0.2', now), 0, 'another address is not held');
    t.failed('10.0.0.1', now + 15_000);
    assert.equal(t.retryAfter('10.0.0.1', now + 15_000), 30);
    for (let i = 0; i < 20; i++) t.failed('10.0.0.1', now + 15_000);
    assert.equal(t.retryAfter('10.0.0.1', now + 15_000), 900);
    t.succeeded('10.0.0.1');
    assert.equal(t.retryAfter('10.0.0.1', now + 15_000), 0);
  });

  it('counts an IPv6 client by its /64 and an IPv4-mapped one by its IPv4 address', () => {
    assert.equal(clientOf('2001:db8:0:1::5'), '2001:db8:0:1::/64');
    assert.equal(clientOf('2001:0db8:0000:0001:ffff:1:2:3'), '2001:db8:0:1::/64');
    assert.equal(clientOf('::1'), '0:0:0:0::/64');
    assert.equal(clientOf('::ffff:127.0.0.2'), '127.0.0.2');
    assert.equal(clientOf('127.0.0.1'), '127.0.0.1');
  });
});
