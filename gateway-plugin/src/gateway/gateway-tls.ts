/**
 * HTTPS on the gateway's port, as Tyk v5.14.0 serves it (`gateway/cert.go`
 * getTLSConfigForClient, Go's crypto/tls getCertificate): `http_server_options.use_ssl` with
 * `certificates` (`domain_name`, `cert_file`, `key_file`), `min_version` (Go's number: 769
 * TLS 1.0 … 772 TLS 1.3; 0 is Go's and Node's default, TLS 1.2) and `ssl_ciphers` (Go's cipher
 * suite names, see languages/go-cipher-suites.ts).
 *
 * The certificate a client gets, by the name it asks for (SNI), as Go picks it: with one
 * certificate, that one; else the one whose `domain_name` is the name, else one whose own names
 * (subject common name, DNS alternative names; a later certificate wins a name two share) are the
 * name, then the same with the first label as `*`, then the first whose names cover it, then the
 * first certificate.
 *
 * Unlike Tyk, a pair that cannot be read or does not load refuses the start (Tyk logs it and
 * serves without it), and so does `use_ssl` without any certificate: the gateway never serves
 * plain HTTP, or a TLS port that fails every handshake, when HTTPS was asked for.
 */
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createSecureContext, type SecureContext } from 'node:tls';
import { ErrorCode, SvcError, errorMessage } from '@svc/engine';
import type { TlsFiles } from '@svc/engine/kit';
import { goTlsVersion } from '../apis/normalise.js';
import { goCipherSuites, type CipherChoice } from '../languages/go-cipher-suites.js';
import type { GatewayConfig } from '../conf/gateway-config.js';

interface Loaded {
  x509: X509Certificate;
  context: SecureContext;
}

function refuse(problem: string, cause?: unknown): SvcError {
  return new SvcError(ErrorCode.ConfigLint, `svc.conf http_server_options: ${problem}`, cause === undefined ? undefined : { cause });
}

/** The certificate's own names as Go's BuildNameToCertificate takes them: the subject's CN and DNS alternative names, lower-cased. */
function namesOf(x509: X509Certificate): string[] {
  const names: string[] = [];
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(x509.subject)?.[1];
  if (cn !== undefined && cn !== '') names.push(cn.toLowerCase());
  for (const part of (x509.subjectAltName ?? '').split(', ')) if (part.startsWith('DNS:')) names.push(part.slice(4).toLowerCase());
  return names;
}

/** The TLS the gateway's listeners serve, or undefined for plain HTTP (`use_ssl` off). */
export async function gatewayTls(options: GatewayConfig['http_server_options']): Promise<TlsFiles | undefined> {
  if (options?.use_ssl !== true) return undefined;
  const min = options.min_version ?? 0;
  let minVersion = goTlsVersion(min);
  if (min !== 0 && minVersion === undefined) throw refuse(`min_version ${min} is not a TLS version: use 769 (TLS 1.0), 770 (1.1), 771 (1.2) or 772 (1.3)`);
  let choice: CipherChoice;
  try {
    choice = goCipherSuites(options.ssl_ciphers ?? []);
  } catch (err) {
    throw refuse(`ssl_ciphers: ${errorMessage(err)}`);
  }
  const { ciphers, tls13Only } = choice;
  if (tls13Only) minVersion = 'TLSv1.3';
  const suites = { ...(minVersion ? { minVersion } : {}), ...(ciphers !== undefined ? { ciphers } : {}) };
  const certificates = options.certificates ?? [];
  if (certificates.length === 0) throw refuse('use_ssl is on but certificates is empty: add { "domain_name", "cert_file", "key_file" } entries');
  const pairs: Array<{ cert: Buffer; key: Buffer }> = [];
  const loaded: Loaded[] = [];
  const byName = new Map<string, Loaded>();
  for (const [i, c] of certificates.entries()) {
    let cert: Buffer;
    let key: Buffer;
    try {
      [cert, key] = await Promise.all([readFile(c.cert_file), readFile(c.key_file)]);
    } catch (err) {
      throw refuse(`certificates[${i}]: cannot read its cert_file or key_file: ${errorMessage(err)}`, err);
    }
    let entry: Loaded;
    try {
      entry = { x509: new X509Certificate(cert), context: createSecureContext({ cert, key, ...suites }) };
    } catch (err) {
      throw refuse(`certificates[${i}] (${c.cert_file}): not a PEM certificate and its private key: ${errorMessage(err)}`, err);
    }
    pairs.push({ cert, key });
    loaded.push(entry);
    for (const name of namesOf(entry.x509)) byName.set(name, entry);
  }
  // Tyk's domain_name entries go over the certificates' own names.
  certificates.forEach((c, i) => {
    if (c.domain_name !== '') byName.set(c.domain_name, loaded[i]!);
  });
  const first = loaded[0]!;
  const pick = (servername: string): Loaded => {
    if (loaded.length === 1) return first;
    const name = servername.toLowerCase();
    const exact = byName.get(name);
    if (exact !== undefined) return exact;
    if (name !== '') {
      const labels = name.split('.');
      labels[0] = '*';
      const wild = byName.get(labels.join('.'));
      if (wild !== undefined) return wild;
      const covering = loaded.find((l) => l.x509.checkHost(name) !== undefined);
      if (covering !== undefined) return covering;
    }
    return first;
  };
  return {
    ...pairs[0]!,
    ...suites,
    // Every client is asked for a certificate; an API with use_mutual_tls_auth judges it (client-certificate-check.ts).
    requestCert: true,
    rejectUnauthorized: false,
    SNICallback: (servername, cb) => cb(null, pick(servername).context),
  };
}
