/**
 * A tunnel through an HTTP proxy (`proxy_url`) for a client that is not undici's (the websocket
 * client): one CONNECT to the target's host and port, answered 200, and the socket is the target's.
 * The proxy URL's user and password go as `Proxy-Authorization: Basic`; errors name the proxy with
 * its password taken out.
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { redactUrl } from '@svc/engine';

export async function connectThroughProxy(proxyUrl: string, target: URL, timeoutMs: number): Promise<Socket> {
  const proxy = new URL(proxyUrl);
  const port = target.port || (target.protocol === 'wss:' || target.protocol === 'https:' ? '443' : '80');
  const authority = `${target.hostname.includes(':') ? `[${target.hostname}]` : target.hostname}:${port}`;
  const headers: Record<string, string> = { host: authority };
  if (proxy.username !== '' || proxy.password !== '') {
    const creds = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
    headers['proxy-authorization'] = `Basic ${Buffer.from(creds).toString('base64')}`;
  }
  const where = redactUrl(proxyUrl);
  return new Promise<Socket>((resolve, reject) => {
    const req = (proxy.protocol === 'https:' ? https : http).request({
      method: 'CONNECT',
      host: proxy.hostname,
      port: proxy.port || (proxy.protocol === 'https:' ? 443 : 80),
      path: authority,
      headers,
      timeout: timeoutMs,
    });
    req.once('connect', (res, socket) => {
      if (res.statusCode === 200) return resolve(socket);
      socket.destroy();
      reject(new Error(`the proxy at ${where} answered ${res.statusCode} to CONNECT ${authority}`));
    });
    req.once('response', (res) => {
      res.resume();
      reject(new Error(`the proxy at ${where} answered ${res.statusCode} to CONNECT ${authority}`));
    });
    req.once('timeout', () => req.destroy(new Error(`the proxy at ${where} did not answer CONNECT ${authority} within ${timeoutMs} ms`)));
    req.once('error', (err) => reject(new Error(`cannot reach the proxy at ${where}: ${err.message}`)));
    req.end();
  });
}
