/**
 * Tyk's CertificateCheckMW (gateway/mw_certificate_check.go, internal/crypto ValidateRequestCerts;
 * v5.14.0): an API with `use_mutual_tls_auth` serves a request only when a certificate the client
 * presented (its chain, as sent) is on the API's allow-list, or was issued by a CA on it; else
 * Tyk's 403 with its words. The gateway's TLS listener asks every client for a certificate
 * (gateway-tls.ts) and leaves the judging to this check, as Tyk's RequestClientCert does.
 */
import { X509Certificate, createHash } from 'node:crypto';
import type { Socket } from 'node:net';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { Answer } from '@svc/engine';
import type { MutualTls } from '../apis/client-certificates.js';
import { tykError } from '../kernel/errors.js';

const NOT_TLS = tykError(403, 'TLS not enabled');
const REQUIRED = tykError(403, 'Client TLS certificate is required');
const EXPIRED = tykError(403, 'Certificate has expired');
/** A client's chain is read this deep at most. */
const MAX_CHAIN = 8;

/** A connection's chain and the ids of its certificates, read once: the handshake fixed them. */
const presented = new WeakMap<TLSSocket, { chain: Buffer[]; ids: string[] }>();

function presentedBy(socket: TLSSocket): { chain: Buffer[]; ids: string[] } {
  let p = presented.get(socket);
  if (p === undefined) {
    const chain = chainOf(socket);
    presented.set(socket, (p = { chain, ids: chain.map((der) => createHash('sha256').update(der).digest('hex')) }));
  }
  return p;
}

/** The chain the client presented, leaf first (DER). */
function chainOf(socket: TLSSocket): Buffer[] {
  const out: Buffer[] = [];
  let c: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  while (c !== undefined && c.raw !== undefined && out.length < MAX_CHAIN) {
    out.push(c.raw);
    const next: DetailedPeerCertificate | undefined = c.issuerCertificate;
    if (next === c || next?.raw === undefined || next.raw.equals(c.raw)) break;
    c = next;
  }
  return out;
}

const cas = new Map<string, X509Certificate>();

function issuedBy(peer: Buffer, caPem: string): boolean {
  let ca = cas.get(caPem);
  if (ca === undefined) cas.set(caPem, (ca = new X509Certificate(caPem)));
  const x = new X509Certificate(peer);
  return x.checkIssued(ca) && x.verify(ca.publicKey);
}

/** Tyk's refusal of the request on `socket` for an API with `mtls`, or undefined when its certificate is allowed. */
export function clientCertificateRefusal(mtls: MutualTls, socket: Socket): Answer | undefined {
  if ((socket as TLSSocket).encrypted !== true) return NOT_TLS;
  const { chain, ids } = presentedBy(socket as TLSSocket);
  if (chain.length === 0) return REQUIRED;
  for (const [i, der] of chain.entries()) {
    for (const allowed of mtls.certificates) {
      if (allowed.ca && issuedBy(der, allowed.pem)) return undefined;
      if (allowed.sha256 === ids[i]) return Date.now() > allowed.notAfter ? EXPIRED : undefined;
    }
  }
  return tykError(403, `Certificate with SHA256 ${ids[0]} not allowed`);
}
