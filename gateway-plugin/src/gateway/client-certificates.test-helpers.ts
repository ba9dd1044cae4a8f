/**
 * Client certificates for the mTLS tests and `scripts/tyk-diff-mtls.mjs`, made with openssl at test
 * time in `dir` (nothing committed): the gateway's server pair, two self-signed clients (`allowed`,
 * `stranger`), and a CA with a client it issued (`issued`). EC P-256, valid one day.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { selfSignedCert } from '@svc/engine/testing';

export interface Pair {
  cert: string;
  key: string;
}

export interface MtlsCertificates {
  server: Pair;
  allowed: Pair;
  stranger: Pair;
  ca: Pair;
  issued: Pair;
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export function mtlsCertificates(dir: string): MtlsCertificates {
  const pair = (name: string): Pair => ({ cert: join(dir, `${name}.pem`), key: join(dir, `${name}-key.pem`) });
  const server = selfSignedCert(dir, 'localhost');
  if (server === undefined) throw new Error('openssl is needed to make the test certificates');
  const self = (name: string, ext: string): Pair => {
    const p = pair(name);
    execFileSync('openssl', ['req', '-x509', ...EC, '-keyout', p.key, '-out', p.cert, '-days', '1', '-subj', `/CN=${name}`, '-addext', ext], {
      stdio: 'ignore',
    });
    return p;
  };
  const allowed = self('allowed', 'basicConstraints=critical,CA:FALSE');
  const stranger = self('stranger', 'basicConstraints=critical,CA:FALSE');
  const ca = self('ca', 'basicConstraints=critical,CA:TRUE');
  const issued = pair('issued');
  const csr = join(dir, 'issued.csr');
  execFileSync('openssl', ['req', '-new', ...EC, '-keyout', issued.key, '-out', csr, '-subj', '/CN=issued'], { stdio: 'ignore' });
  execFileSync('openssl', ['x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-out', issued.cert, '-days', '1'], {
    stdio: 'ignore',
  });
  return { server, allowed, stranger, ca, issued };
}

/** A pair's PEM texts, as a client's `cert` and `key` options take them. */
export function clientTls(p: Pair): { cert: Buffer; key: Buffer } {
  return { cert: readFileSync(p.cert), key: readFileSync(p.key) };
}
