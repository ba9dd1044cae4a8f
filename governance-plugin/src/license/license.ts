/**
 * Governance licenses. A license key is `svclic1.<payload>.<signature>`: the payload is
 * base64url JSON `{sub, features, iat, exp, iss}` where `iss` is the issuer's Ed25519 public
 * key (base64url of its raw 32 bytes) and the signature is Ed25519 over `svclic1.<payload>`.
 *
 * The hub issues them (`engine hub license`) with its own key pair. The agent checks a key at
 * start, offline: format, signature against the embedded issuer key, the `governance`
 * feature and expiry. The hub then accepts an agent only when the license's issuer is its own
 * key, so a license made with another key pair gets the agent nowhere.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

export const GOVERNANCE_FEATURE = 'governance';
const PREFIX = 'svclic1';

export interface License {
  /** Who the license is for. */
  sub: string;
  features: string[];
  /** Issued at and expires at, seconds since the epoch. */
  iat: number;
  exp: number;
  /** The issuer's Ed25519 public key, base64url of the raw 32 bytes. */
  iss: string;
}

export class LicenseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LicenseError';
  }
}

/** An issuer key pair as stored by the hub: PKCS#8 private key, base64url. */
export function newIssuerKey(): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  return privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64url');
}

function privateKeyOf(issuerKey: string): KeyObject {
  return createPrivateKey({ key: Buffer.from(issuerKey, 'base64url'), format: 'der', type: 'pkcs8' });
}

/** The raw public key (base64url) of an issuer key: the `iss` of the licenses it signs. */
export function issuerId(issuerKey: string): string {
  const jwk = createPublicKey(privateKeyOf(issuerKey)).export({ format: 'jwk' });
  return jwk.x as string;
}

export function issueLicense(issuerKey: string, sub: string, validForSeconds: number, features: string[] = [GOVERNANCE_FEATURE], now = Date.now()): string {
  const iat = Math.floor(now / 1000);
  const payload: License = { sub, features, iat, exp: iat + validForSeconds, iss: issuerId(issuerKey) };
  const signed = `${PREFIX}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  const signature = sign(null, Buffer.from(signed), privateKeyOf(issuerKey)).toString('base64url');
  return `${signed}.${signature}`;
}

/**
 * Checks a license key offline and returns what it grants. Throws a LicenseError that says
 * what is wrong (never echoing the key) when it is malformed, tampered with, lacks the
 * governance feature or has expired.
 */
export function verifyLicense(key: string, now = Date.now()): License {
  const parts = key.trim().split('.');
  if (parts.length !== 3 || parts[0] !== PREFIX) throw new LicenseError(`license key is malformed: expected "${PREFIX}.<payload>.<signature>"`);
  let license: License;
  try {
    license = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as License;
  } catch {
    throw new LicenseError('license key is malformed: its payload is not base64url JSON');
  }
  if (typeof license.iss !== 'string' || typeof license.exp !== 'number' || !Array.isArray(license.features)) {
    throw new LicenseError('license key is malformed: payload lacks iss, exp or features');
  }
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: license.iss }, format: 'jwk' });
  } catch {
    throw new LicenseError('license key is malformed: its issuer key is not an Ed25519 public key');
  }
  if (!verify(null, Buffer.from(`${parts[0]}.${parts[1]}`), publicKey, Buffer.from(parts[2]!, 'base64url'))) {
    throw new LicenseError('license key signature is invalid: the key was altered or not issued by a hub');
  }
  if (!license.features.includes(GOVERNANCE_FEATURE)) throw new LicenseError(`license does not include the "${GOVERNANCE_FEATURE}" feature`);
  if (license.exp * 1000 <= now) throw new LicenseError(`license expired at ${new Date(license.exp * 1000).toISOString()}`);
  return license;
}
