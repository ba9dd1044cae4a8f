/** A self-signed certificate for localhost (or `host`) and 127.0.0.1, made by openssl, for TLS tests. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Writes cert.pem and key.pem (`<host>-cert.pem` ... for another host) into `dir`; returns their paths, or undefined when openssl is missing. */
export function selfSignedCert(dir: string, host = 'localhost'): { cert: string; key: string } | undefined {
  const prefix = host === 'localhost' ? '' : `${host}-`;
  const cert = join(dir, `${prefix}cert.pem`);
  const key = join(dir, `${prefix}key.pem`);
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        `/CN=${host}`,
        '-addext',
        `subjectAltName=DNS:${host},IP:127.0.0.1`,
      ],
      { stdio: 'ignore' },
    );
  } catch {
    return undefined;
  }
  return { cert, key };
}
