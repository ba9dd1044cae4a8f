/** Signing test tokens with node:crypto, as an identity provider would. */
import { createHmac, createSign, sign, constants, type KeyObject } from 'node:crypto';

const b64u = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

export function signJwt(alg: string, claims: Record<string, unknown>, key: KeyObject | Buffer | string, header: Record<string, unknown> = {}): string {
  const input = `${b64u(JSON.stringify({ alg, typ: 'JWT', ...header }))}.${b64u(JSON.stringify(claims))}`;
  const bits = alg.slice(2);
  let sig: Buffer;
  if (alg.startsWith('HS'))
    sig = createHmac(`sha${bits}`, key as Buffer)
      .update(input)
      .digest();
  else if (alg.startsWith('RS'))
    sig = createSign(`sha${bits}`)
      .update(input)
      .sign(key as KeyObject);
  else if (alg.startsWith('PS'))
    sig = sign(`sha${bits}`, Buffer.from(input), { key: key as KeyObject, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: Number(bits) / 8 });
  else if (alg.startsWith('ES')) sig = sign(`sha${bits}`, Buffer.from(input), { key: key as KeyObject, dsaEncoding: 'ieee-p1363' });
  else sig = Buffer.alloc(0);
  return `${input}.${b64u(sig)}`;
}

export const nowS = (): number => Math.floor(Date.now() / 1000);
