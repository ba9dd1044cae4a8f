/**
 * The client certificate the gateway presents to an HTTPS upstream, as Tyk v5.14.0 picks it
 * (`gateway/cert.go` getCertificateIDForHost): of an API's `upstream_certificates`, the entry for
 * `*`, overridden by `*.<domain>` (without, then with the port), by the host without its port,
 * then by the host as the URL has it. An entry is a PEM file holding the certificate and its
 * private key, or that PEM itself (Tyk's certificate store ids are not read: such an id is read as
 * a file, and a file that cannot be read fails the request, as the upstream would refuse it).
 */
import { readFileSync } from 'node:fs';

/** Tyk's getCertificateIDForHost over one map; '' when no entry applies. */
export function certificateIdForHost(host: string, map: Record<string, string>): string {
  // The host may come from a client's value (a rewrite to a full URL): `constructor` is not an entry.
  const entry = (k: string): string | undefined => (Object.hasOwn(map, k) ? map[k] : undefined);
  let id = entry('*') ?? '';
  const colon = host.lastIndexOf(':');
  const withoutPort = colon > 0 && !host.endsWith(']') ? host.slice(0, colon) : host;
  const dot = withoutPort.indexOf('.');
  if (dot > 0) {
    id = entry(`*.${withoutPort.slice(dot + 1)}`) ?? id;
    id = entry(`*.${host.slice(host.indexOf('.') + 1)}`) ?? id;
  }
  return entry(host) ?? entry(withoutPort) ?? id;
}

const loaded = new Map<string, Buffer>();

/** The PEM of a certificate id (a file, read once; or the PEM itself). Throws when the file cannot be read. */
export function certificatePem(id: string): Buffer {
  let pem = loaded.get(id);
  if (pem === undefined) {
    pem = id.includes('-----BEGIN') ? Buffer.from(id) : readFileSync(id);
    if (loaded.size > 1000) loaded.clear();
    loaded.set(id, pem);
  }
  return pem;
}
