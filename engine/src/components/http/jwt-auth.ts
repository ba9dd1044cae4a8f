/**
 * `jwt`: requests carry `Authorization: Bearer <token>`, a JWT signed with a private key
 * (`private_key_file`, PKCS#1 or PKCS#8 PEM) by `signing_method`, with the configured `claims`
 * and extra `headers`. The claims are static, so the token is signed once.
 */
import { readFileSync } from 'node:fs';
import { createPrivateKey, sign, constants, type KeyObject } from 'node:crypto';
import { ErrorCode, SvcError, errorMessage, f, type Infer } from '@svc/engine';
import type { OutgoingRequest, RequestAuth } from './outgoing-request.js';

export const JWT_METHODS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
export type JwtMethod = (typeof JWT_METHODS)[number];

export const jwtSpec = f
  .object({
    enabled: f.bool().default(false).describe('Whether to send a signed JWT as a bearer token.'),
    private_key_file: f.string().default('').describe('A PEM private key (PKCS#1 or PKCS#8) to sign the token with.'),
    signing_method: f
      .string()
      .default('')
      .validate((m) => (m === '' || (JWT_METHODS as readonly string[]).includes(m) ? undefined : `signing_method must be one of ${JWT_METHODS.join(', ')}`))
      .describe(`The signing method: ${JWT_METHODS.join(', ')}.`),
    claims: f.map(f.any()).default({}).describe('The claims of the token.'),
    headers: f.map(f.any()).default({}).describe('Extra header fields of the token.'),
  })
  .describe('A JWT signed with a private key, sent as a bearer token.');

export type JwtConfig = Infer<typeof jwtSpec>;

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** Signs `data` with the JWS algorithm `method` (RFC 7518). */
export function jwsSign(method: JwtMethod, data: string, key: KeyObject): Buffer {
  const bits = method === 'EdDSA' ? 0 : Number(method.slice(2));
  const hash = bits ? `sha${bits}` : null;
  if (method.startsWith('PS')) {
    return sign(hash, Buffer.from(data), { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: bits / 8 });
  }
  if (method.startsWith('ES')) return sign(hash, Buffer.from(data), { key, dsaEncoding: 'ieee-p1363' });
  return sign(hash, Buffer.from(data), key);
}

export class JwtAuth implements RequestAuth {
  private readonly header: string;

  constructor(conf: JwtConfig) {
    if (!conf.private_key_file) throw new SvcError(ErrorCode.ConfigLint, 'jwt.private_key_file is required when jwt is enabled');
    const method = (conf.signing_method || 'RS256') as JwtMethod;
    let key: KeyObject;
    try {
      key = createPrivateKey(readFileSync(conf.private_key_file));
    } catch (err) {
      throw new SvcError(ErrorCode.ConfigFile, `jwt.private_key_file: cannot load "${conf.private_key_file}": ${errorMessage(err)}`, { cause: err });
    }
    const head = b64url(JSON.stringify({ ...conf.headers, alg: method, typ: 'JWT' }));
    const body = b64url(JSON.stringify(conf.claims));
    const input = `${head}.${body}`;
    this.header = `Bearer ${input}.${b64url(jwsSign(method, input, key))}`;
  }

  apply(req: OutgoingRequest): void {
    req.headers['authorization'] = this.header;
  }
}
