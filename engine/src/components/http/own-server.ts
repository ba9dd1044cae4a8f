/**
 * The server of an http_server input with its own `address`: the engine's `HttpListener` with
 * http_server's settings. Plain HTTP/1.1, or with `cert_file` and `key_file` TLS with HTTP/2
 * (HTTP/1.1 still accepted). Headers must arrive within the input's `timeout` (bounded to
 * 1 s..60 s), which bounds slowloris-style clients; the body and the delivery are bounded by the
 * input itself, so the listener sets no request timeout. Closing lets in-flight requests finish
 * for 5 s, then cuts what is left.
 */
import type { Logger } from '@svc/engine';
import { loadTlsFiles, type HttpListenerOptions, type HttpRequest, type HttpResponse, type UpgradeListener } from '@svc/engine/kit';

/** How long closing waits for in-flight requests before it cuts every connection. */
const CLOSE_GRACE_MS = 5_000;

/** The listener's options for `conf.address`, with the TLS files read. */
export async function ownServerOptions(
  conf: { address: string; cert_file: string; key_file: string },
  timeoutMs: number,
  handler: (req: HttpRequest, res: HttpResponse) => void,
  upgrade: UpgradeListener | undefined,
  log: Logger,
): Promise<HttpListenerOptions> {
  const tls = await loadTlsFiles(conf, 'http_server.');
  return {
    name: 'http_server',
    address: conf.address,
    addressField: 'http_server.address',
    logger: log,
    tls,
    http2: true,
    handler,
    upgrade,
    headersTimeoutMs: Math.min(Math.max(timeoutMs, 1_000), 60_000),
    requestTimeoutMs: 0,
    closeGraceMs: CLOSE_GRACE_MS,
  };
}
