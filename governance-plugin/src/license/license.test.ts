import { test } from 'node:test';
import assert from 'node:assert/strict';
import { issueLicense, issuerId, newIssuerKey, verifyLicense } from './license.js';

test('a license issued by a hub verifies, names its issuer and grants governance', () => {
  const key = newIssuerKey();
  const license = verifyLicense(issueLicense(key, 'acme', 3600));
  assert.equal(license.sub, 'acme');
  assert.equal(license.iss, issuerId(key));
  assert.deepEqual(license.features, ['governance']);
});

test('expired, featureless, altered and malformed licenses are refused with what is wrong', () => {
  const key = newIssuerKey();
  assert.throws(() => verifyLicense(issueLicense(key, 'acme', 60, undefined, Date.now() - 120_000)), /expired at/);
  assert.throws(() => verifyLicense(issueLicense(key, 'acme', 60, ['other'])), /"governance" feature/);
  const good = issueLicense(key, 'acme', 60);
  const [prefix, payload, signature] = good.split('.');
  const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), exp: 9e9 })).toString('base64url');
  assert.throws(() => verifyLicense(`${prefix}.${forged}.${signature}`), /signature is invalid/);
  assert.throws(() => verifyLicense('not-a-license'), /malformed/);
  assert.throws(() => verifyLicense(`svclic1.%%%.${signature}`), /malformed/);
});
