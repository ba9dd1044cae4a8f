/**
 * Tyk's `ssl_ciphers` (Go cipher suite names, as `internal/crypto/ciphers.go` ResolveCipher reads
 * them: Go's `tls.CipherSuites()` and `tls.InsecureCipherSuites()`, case-insensitive, the two
 * legacy CHACHA20 names without `_SHA256` too) as Node's `ciphers` string (OpenSSL names).
 *
 * - TLS 1.2 suites map to their OpenSSL names; those Node's OpenSSL 3 does not build (RC4, 3DES)
 *   are refused, naming them.
 * - TLS 1.3 suites (`TLS_AES_128_GCM_SHA256` ...) are accepted and have no effect, as in Go,
 *   where TLS 1.3 suites are not configurable: Node keeps its default TLS 1.3 suites. A list of
 *   only TLS 1.3 suites leaves Go no TLS 1.2 suite, so TLS 1.2 handshakes fail: here the
 *   listener serves TLS 1.3 only, which is the same for a client.
 * - A name Go does not know is refused at load, naming it (Tyk logs it at debug level and skips
 *   it, which could leave a listener with other suites than the operator meant).
 */
const TLS12: Record<string, string | null> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  // Go's insecure ones (Tyk turns RSA key exchange and 3DES back on with godebug).
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  // Known to Go, not built into Node's OpenSSL 3.
  TLS_RSA_WITH_RC4_128_SHA: null,
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: null,
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: null,
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: null,
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: null,
};
const TLS13 = new Set(['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256']);
const LEGACY: Record<string, string> = {
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
};

/** What a listener's TLS gets from `ssl_ciphers`: Node's `ciphers`, and TLS 1.3 only when the list held no TLS 1.2 suite. */
export interface CipherChoice {
  ciphers?: string;
  tls13Only: boolean;
}

/**
 * Node's cipher settings for Tyk's `ssl_ciphers` list; an empty list changes nothing. Throws, naming
 * the entry, on a name it refuses (the caller says which field).
 */
export function goCipherSuites(names: readonly string[]): CipherChoice {
  const openssl: string[] = [];
  for (const given of names) {
    const upper = given.toUpperCase();
    const name = LEGACY[upper] ?? upper;
    if (TLS13.has(name)) continue;
    const mapped = TLS12[name];
    if (mapped === undefined)
      throw new Error(`"${given}" is not a Go cipher suite name: use names such as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 (Go's tls.CipherSuites)`);
    if (mapped === null) throw new Error(`"${given}" (RC4 or 3DES) is not available in this Node's OpenSSL: remove it from the list`);
    if (!openssl.includes(mapped)) openssl.push(mapped);
  }
  if (openssl.length > 0) return { ciphers: openssl.join(':'), tls13Only: false };
  return { tls13Only: names.length > 0 };
}
