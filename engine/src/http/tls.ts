import { readFile } from 'node:fs/promises';
import type { SecureContextOptions, TlsOptions } from 'node:tls';
import { ErrorCode, SvcError, errorMessage } from '../errors.js';

/**
 * A server's certificate chain and private key, as read from `cert_file` and `key_file`, and
 * optionally node:tls's certificate choice by server name (SNI), protocol versions and ciphers.
 */
export interface TlsFiles
  extends Pick<TlsOptions, 'SNICallback' | 'requestCert' | 'rejectUnauthorized'>, Pick<SecureContextOptions, 'minVersion' | 'maxVersion' | 'ciphers'> {
  cert: Buffer;
  key: Buffer;
}

/**
 * Reads `cert_file` and `key_file` for a server: undefined when neither is set (plain HTTP).
 * Half a TLS config is an error, not plain HTTP, since serving in the clear when TLS was asked
 * for would be a silent downgrade. `prefix` names the fields in errors (`http.`, `http_server.`).
 */
export async function loadTlsFiles(conf: { cert_file: string; key_file: string }, prefix = ''): Promise<TlsFiles | undefined> {
  const { cert_file: certFile, key_file: keyFile } = conf;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) {
    throw new SvcError(ErrorCode.ConfigLint, `${prefix}cert_file and ${prefix}key_file must be set together to serve TLS`);
  }
  const read = async (field: string, file: string): Promise<Buffer> => {
    try {
      return await readFile(file);
    } catch (err) {
      throw new SvcError(ErrorCode.ConfigFile, `${prefix}${field}: cannot read "${file}": ${errorMessage(err)}`, { cause: err });
    }
  };
  return { cert: await read('cert_file', certFile), key: await read('key_file', keyFile) };
}
