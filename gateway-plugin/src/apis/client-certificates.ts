/**
 * `use_mutual_tls_auth` with `client_certificates` (Tyk v5.14.0: the static mTLS allow-list): each
 * entry is a reference Tyk's certificate manager resolves (certs/manager.go List): here a PEM file's
 * path or the PEM text itself. An id of Tyk's certificate store (Redis) is refused at load, and so is
 * a reference that is not a readable PEM certificate (Tyk logs it and leaves a hole in the list).
 * Read once, at load, into plain data (a spec crosses threads).
 */
import { X509Certificate, createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Fields } from './fields.js';

export interface AllowedCertificate {
  /** Tyk's certificate id: the hex SHA-256 of its DER bytes. */
  sha256: string;
  /** A CA: a client certificate it issued is allowed too. */
  ca: boolean;
  /** Its PEM text (a CA's, to check what it issued). */
  pem: string;
  /** When it expires (ms since the epoch): a client presenting it after that gets Tyk's 403. */
  notAfter: number;
}

export interface MutualTls {
  certificates: AllowedCertificate[];
}

function allowed(text: string): AllowedCertificate {
  const x509 = new X509Certificate(text);
  return { sha256: createHash('sha256').update(x509.raw).digest('hex'), ca: x509.ca, pem: x509.toString(), notAfter: Date.parse(x509.validTo) };
}

/** The API's mTLS allow-list, or undefined when `use_mutual_tls_auth` is off. */
export function mutualTlsOf(root: Fields): MutualTls | undefined {
  if (!root.bool('use_mutual_tls_auth')) return undefined;
  const certificates = root.strings('client_certificates').map((ref, i) => {
    const text = ref.includes('-----BEGIN') ? ref : readable(ref);
    try {
      if (text === undefined) throw new Error('no such file');
      return allowed(text);
    } catch (err) {
      return root.fail(
        `client_certificates[${i}]`,
        `not supported: ${JSON.stringify(ref.slice(0, 80))} is neither a PEM certificate nor the path of one (ids of Tyk's certificate store are not implemented): ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  });
  return { certificates };
}

function readable(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
