import { test } from 'node:test';
import assert from 'node:assert/strict';
import { murmur128Hex, murmur32Tyk, murmur64Hex } from './murmur3.js';
import { generateToken, hashStr, storeKeyCandidates, tokenHashAlgo, tokenOrg } from './key-hash.js';

// Reference values printed by Go with github.com/TykTechnologies/murmur3
// v0.0.0-20230310161213-aad17efd5632 (the version Tyk v5.14.0 builds with): hex(h.Sum(nil)).
const VECTORS: [string, string, string, string][] = [
  ['', '00000000', '0000000000000000', '00000000000000000000000000000000'],
  ['a', '00000000', '85555565f6597889', '85555565f6597889e6b53a48510e895a'],
  ['hello', 'ef13efcd', 'cbd8a7b341bd9b02', 'cbd8a7b341bd9b025b1e906a48ae1d19'],
  ['The quick brown fox jumps over the lazy dog', 'd453972f', 'e34bbc7bbc071b6c', 'e34bbc7bbc071b6c7a433ca9c49a9347'],
  ['org1abcdef0123456789', '9c5055e3', 'c8a8f6a693d5924c', 'c8a8f6a693d5924ca2e2bb00dd364e0e'],
  ['eyJvcmciOiJvcmcxIiwiaWQiOiJrZXkxIiwiaCI6Im11cm11cjY0In0=', '0205e991', '9229ebf59a0e5214', '9229ebf59a0e521490842405015a19ca'],
  ['0123456789abcdef0', '61c9613e', 'eb24ae8785a5c075', 'eb24ae8785a5c07573fb68b3313128ca'],
];

test('murmur3 digests are those of the Go package Tyk hashes keys with', () => {
  for (const [s, h32, h64, h128] of VECTORS) {
    const b = Buffer.from(s);
    assert.equal(murmur32Tyk(b), h32, `murmur32 ${JSON.stringify(s)}`);
    assert.equal(murmur64Hex(b), h64, `murmur64 ${JSON.stringify(s)}`);
    assert.equal(murmur128Hex(b), h128, `murmur128 ${JSON.stringify(s)}`);
  }
});

test('generateToken: legacy org+id without a hash function, base64 JSON with one', () => {
  assert.equal(generateToken('org1', 'key1', ''), 'org1key1');
  assert.equal(generateToken('org1', 'org1key1', ''), 'org1key1', 'an org prefix is not doubled');
  const t = generateToken('org1', 'key1', 'murmur64');
  assert.equal(t, 'eyJvcmciOiJvcmcxIiwiaWQiOiJrZXkxIiwiaCI6Im11cm11cjY0In0=');
  assert.equal(tokenHashAlgo(t), 'murmur64');
  assert.equal(tokenOrg(t), 'org1');
  assert.equal(JSON.parse(Buffer.from(generateToken('o', 'k', 'nonsense'), 'base64').toString()).h, 'murmur64');
});

test('hashStr: the key names its own hash function, else murmur32', () => {
  const t = generateToken('org1', 'key1', 'murmur64');
  assert.equal(hashStr(t), '9229ebf59a0e5214');
  assert.equal(hashStr('hello'), 'ef13efcd');
  assert.equal(hashStr('hello', 'sha256'), '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
});

test('storeKeyCandidates: a foreign key is tried as a custom key of the org first, then as it is', () => {
  assert.deepEqual(storeKeyCandidates('abc', 'org1', '', false), ['org1abc', 'abc']);
  assert.deepEqual(storeKeyCandidates('abc', 'org1', '', true), [hashStr('org1abc'), hashStr('abc')]);
  const own = generateToken('org1', 'k', 'murmur64');
  assert.deepEqual(storeKeyCandidates(own, 'org1', 'murmur64', false), [own]);
});
