/** A self-signed certificate for localhost and 127.0.0.1, made by openssl, for TLS tests. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Writes cert.pem and key.pem into `dir`; returns their paths, or undefined when openssl is missing. */
export function selfSignedCert(dir: string): { cert: string; key: string } | undefined {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
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
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
  } catch {
    return undefined;
  }
  return { cert, key };
}
