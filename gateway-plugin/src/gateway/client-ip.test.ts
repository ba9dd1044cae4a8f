/**
 * Addresses and lists compared as Go's net package compares them (Tyk's IP lists use
 * net.ParseIP, net.ParseCIDR, IP.Equal and IPNet.Contains): what a list entry holds.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ipListed, parseIp } from './client-ip.js';

const listed = (ip: string, list: string[]): boolean => ipListed(parseIp(ip), list);

test('addresses parse as net.ParseIP does (no leading zeros, no zones, IPv4 tails in IPv6)', () => {
  for (const ok of ['127.0.0.1', '0.0.0.0', '::', '::1', '2001:db8::8a2e:370:7334', '::ffff:10.0.0.1', '1:2:3:4:5:6:7:8', 'fe80::1:2'])
    assert.ok(parseIp(ok), ok);
  for (const bad of ['010.0.0.1', '256.0.0.1', '1.2.3', 'fe80::1%eth0', '1:2:3:4:5:6:7:8:9', '1::2::3', ':::', 'localhost', '', '1.2.3.4/8'])
    assert.equal(parseIp(bad), undefined, bad);
});

test('single addresses: IPv4 equals its IPv4-mapped form; IPv6 compares whole', () => {
  assert.ok(listed('127.0.0.1', ['::ffff:127.0.0.1']));
  assert.ok(listed('::ffff:127.0.0.1', ['127.0.0.1']));
  assert.ok(listed('2001:db8::1', ['2001:0db8:0:0:0:0:0:1']));
  assert.ok(!listed('2001:db8::2', ['2001:db8::1']));
});

test('CIDRs: an IPv4 network holds IPv4 and mapped addresses; an IPv6 one IPv6 only; a mapped network is IPv4 with the last 32 bits of its mask', () => {
  assert.ok(listed('10.1.2.3', ['10.0.0.0/8']));
  assert.ok(listed('::ffff:10.1.2.3', ['10.0.0.0/8']));
  assert.ok(!listed('11.0.0.1', ['10.0.0.0/8']));
  assert.ok(listed('10.1.2.3', ['10.1.2.3/32']));
  assert.ok(listed('8.8.8.8', ['0.0.0.0/0']));
  assert.ok(!listed('::1', ['0.0.0.0/0']));
  assert.ok(!listed('127.0.0.1', ['::/0']));
  assert.ok(listed('2001:db8:1::5', ['2001:db8::/32']));
  assert.ok(!listed('2001:db9::5', ['2001:db8::/32']));
  assert.ok(listed('127.9.9.9', ['::ffff:127.0.0.0/104']));
  assert.ok(listed('10.0.0.1', ['10.0.0.0/7']) && listed('11.255.0.1', ['10.0.0.0/7']) && !listed('12.0.0.1', ['10.0.0.0/7']));
});

test('entries that are neither an address nor a CIDR match nothing; no address is on no list', () => {
  assert.ok(!listed('127.0.0.1', ['localhost', '127.0.0.1/33', '127.0.0.1/', '']));
  assert.ok(!ipListed(undefined, ['0.0.0.0/0']));
});
