/**
 * The `tls` object of every client (HTTP, Kafka, AMQP): trust (`root_cas`, `root_cas_file`), client
 * certificates (inline or from files, with an optional key password) and `skip_cert_verify`.
 * Turned once into Node TLS connect options for undici.
 */
import { readFileSync } from 'node:fs';
import { rootCertificates, type ConnectionOptions } from 'node:tls';
import { f, type Infer } from '../../config/spec.js';
import { ErrorCode, SvcError, errorMessage } from '../../errors.js';

const clientCertSpec = f.object({
  cert: f.string().default('').describe('A PEM certificate (chain).'),
  key: f.string().default('').secret().describe('The PEM private key of `cert`.'),
  cert_file: f.string().default('').describe('A file holding a PEM certificate (chain).'),
  key_file: f.string().default('').describe('A file holding the PEM private key of `cert_file`.'),
  password: f.string().default('').secret().describe('Decrypts an encrypted PKCS#1 or PKCS#8 key.'),
});

export const tlsSpec = f
  .object({
    enabled: f.bool().default(false).describe('Whether custom TLS settings are used.'),
    skip_cert_verify: f.bool().default(false).describe('Whether to skip verifying the server certificate (insecure).'),
    enable_renegotiation: f
      .bool()
      .default(false)
      .advanced()
      .describe(
        "Whether the server may renegotiate (TLS 1.2). Node's TLS client accepts server-initiated renegotiation, so this is accepted for compatibility.",
      ),
    root_cas: f.string().default('').describe('PEM certificate authorities to trust, in addition to the system ones.'),
    root_cas_file: f.string().default('').describe('A file of PEM certificate authorities to trust, in addition to the system ones.'),
    client_certs: f
      .array(clientCertSpec)
      .default([])
      .validate((certs) => {
        for (const [i, c] of certs.entries()) {
          const inline = c.cert !== '' || c.key !== '';
          const files = c.cert_file !== '' || c.key_file !== '';
          if (inline && files) return `client_certs.${i}: give either cert and key, or cert_file and key_file, not both`;
          if (inline && (c.cert === '' || c.key === '')) return `client_certs.${i}: cert and key go together`;
          if (files && (c.cert_file === '' || c.key_file === '')) return `client_certs.${i}: cert_file and key_file go together`;
        }
        return undefined;
      })
      .describe('Client certificates to present: each either `cert` and `key`, or `cert_file` and `key_file`.'),
  })
  .describe('Custom TLS settings for HTTPS URLs.');

export type TlsConfig = Infer<typeof tlsSpec>;

function read(file: string, field: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new SvcError(ErrorCode.ConfigFile, `tls.${field}: cannot read "${file}": ${errorMessage(err)}`, { cause: err });
  }
}

/** Node TLS options for a client, or undefined when TLS is not customised. */
export function tlsConnectOptions(conf: TlsConfig | undefined): ConnectionOptions | undefined {
  if (!conf?.enabled) return undefined;
  const opts: ConnectionOptions = { rejectUnauthorized: !conf.skip_cert_verify };
  const cas: string[] = [];
  if (conf.root_cas) cas.push(conf.root_cas);
  if (conf.root_cas_file) cas.push(read(conf.root_cas_file, 'root_cas_file'));
  // Custom CAs add to the system ones, as in Go, rather than replacing them.
  if (cas.length) opts.ca = [...rootCertificates, ...cas];
  if (conf.client_certs.length) {
    const certs: string[] = [];
    const keys: Array<{ pem: string; passphrase?: string }> = [];
    for (const [i, c] of conf.client_certs.entries()) {
      certs.push(c.cert || read(c.cert_file, `client_certs.${i}.cert_file`));
      const pem = c.key || read(c.key_file, `client_certs.${i}.key_file`);
      keys.push(c.password ? { pem, passphrase: c.password } : { pem });
    }
    opts.cert = certs;
    opts.key = keys;
  }
  return opts;
}
