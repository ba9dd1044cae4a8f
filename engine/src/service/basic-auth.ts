/**
 * `http.basic_auth` (Benthos' service-wide basic authentication): every request to the service
 * server must carry the configured user and a password whose hash, by `algorithm`, is
 * `password_hash` (base64), else 401 with `WWW-Authenticate: Basic realm="…"`. Hashes as Benthos
 * checks them: md5 and sha256 of the password, bcrypt, scrypt (N 32768, r 8, p 1, 32 bytes, with
 * the base64 `salt`). bcrypt and scrypt are slow by design: they run off the event loop (bcryptjs'
 * and node's async forms), and a password that passed is remembered (as its SHA-256) so that a
 * scraper's every request does not pay for them again.
 */
import { createHash, scrypt, timingSafeEqual } from 'node:crypto';
import type * as http from 'node:http';
import bcrypt from 'bcryptjs';
import { f, type Infer } from '../config/spec.js';

const ALGORITHMS = ['md5', 'sha256', 'bcrypt', 'scrypt'] as const;

export const serviceBasicAuthSpec = f
  .object({
    enabled: f.bool().default(false).describe('Enable basic authentication.'),
    realm: f.string().default('restricted').describe('Custom realm name.'),
    username: f.string().default('').describe('Username required to authenticate.'),
    password_hash: f.string().default('').secret().describe('Hashed password required to authenticate (base64 encoded).'),
    algorithm: f.enum(ALGORITHMS).default('sha256').describe('The algorithm that made `password_hash`.'),
    salt: f.string().default('').secret().describe('Salt for the scrypt algorithm (base64 encoded).'),
  })
  .validate((c) => {
    if (!c.enabled) return undefined;
    if (c.username === '' || c.password_hash === '') return 'basic_auth: both username and password_hash are required';
    if (c.algorithm === 'scrypt' && c.salt === '') return 'basic_auth: salt is required for scrypt';
    return undefined;
  })
  .advanced()
  .describe('Basic authentication for every request to the HTTP server.');

export type ServiceBasicAuthConfig = Infer<typeof serviceBasicAuthSpec>;

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function sha256(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

export class ServiceBasicAuth {
  private readonly expected: Buffer;
  private readonly user: Buffer;
  private readonly challenge: string;
  /** SHA-256 of the last password that passed a slow check (bcrypt, scrypt). */
  private passed: Buffer | undefined;

  constructor(private readonly conf: ServiceBasicAuthConfig) {
    this.expected = Buffer.from(conf.password_hash, 'base64');
    this.user = Buffer.from(conf.username);
    this.challenge = `Basic realm=${JSON.stringify(conf.realm)}, charset="UTF-8"`;
  }

  /** True when the request may go on; otherwise it was answered 401. */
  async admit(req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> {
    const [user, pass] = credentials(req.headers.authorization);
    const userOk = sameBytes(Buffer.from(user), this.user);
    const passOk = await this.matches(pass);
    if (userOk && passOk) return true;
    res.writeHead(401, { 'www-authenticate': this.challenge, 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
    res.end('Unauthorized\n');
    return false;
  }

  private async matches(pass: string): Promise<boolean> {
    switch (this.conf.algorithm) {
      case 'md5':
        return sameBytes(createHash('md5').update(pass).digest(), this.expected);
      case 'sha256':
        return sameBytes(sha256(pass), this.expected);
      default: {
        const digest = sha256(pass);
        if (this.passed !== undefined && sameBytes(digest, this.passed)) return true;
        const ok = this.conf.algorithm === 'bcrypt' ? await bcrypt.compare(pass, this.expected.toString('latin1')).catch(() => false) : await this.scrypt(pass);
        if (ok) this.passed = digest;
        return ok;
      }
    }
  }

  private scrypt(pass: string): Promise<boolean> {
    const salt = Buffer.from(this.conf.salt, 'base64');
    return new Promise((resolve) =>
      scrypt(pass, salt, 32, { N: 32768, r: 8, p: 1, maxmem: 64 << 20 }, (err, key) => resolve(err === null && sameBytes(key, this.expected))),
    );
  }
}

/** The user and password of a Basic Authorization header ('' and '' when there is none, as Go's r.BasicAuth). */
function credentials(header: string | undefined): [string, string] {
  if (header === undefined || !/^basic /i.test(header)) return ['', ''];
  const text = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon < 0 ? ['', ''] : [text.slice(0, colon), text.slice(colon + 1)];
}
