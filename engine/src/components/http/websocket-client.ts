/**
 * What the `websocket` input and output share (Benthos' fields): `url`, `proxy_url` (a CONNECT
 * tunnel, as gorilla/websocket dials through a proxy), `tls`, and the handshake's credentials (`basic_auth`,
 * `oauth`, `jwt`, signed as the HTTP client signs a request). `dial` opens one connection.
 */
import { ErrorCode, SvcError, errorMessage, f, tlsConnectOptions, tlsSpec, type Infer } from '@svc/engine';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { RawData, WebSocket } from 'ws';
import { BasicAuth, basicAuthSpec } from './basic-auth.js';
import { JwtAuth, jwtSpec } from './jwt-auth.js';
import { ws } from './lazy-deps.js';
import { OAuth1, oauthSpec } from './oauth1.js';
import type { OutgoingRequest, RequestAuth } from './outgoing-request.js';
import { connectThroughProxy } from './proxy-tunnel.js';

const HANDSHAKE_MS = 10_000;

export const websocketClientFields = {
  url: f.string().describe('The URL to connect to (`ws://localhost:4195/get/ws`).'),
  proxy_url: f
    .string()
    .url()
    .optional()
    .describe('An optional HTTP proxy URL: the connection is a CONNECT tunnel through it (`http://[user:password@]host:port`).'),
  tls: tlsSpec,
  oauth: oauthSpec,
  basic_auth: basicAuthSpec,
  jwt: jwtSpec,
};

type ClientConf = Infer<ReturnType<typeof f.object<typeof websocketClientFields>>>;

/** Checks what is implemented and prepares the handshake's signing; throws at start otherwise. */
export function websocketAuth(conf: ClientConf, what: string): RequestAuth[] {
  if (conf.proxy_url && !/^https?:\/\//.test(conf.proxy_url))
    throw new SvcError(ErrorCode.ConfigLint, `${what}: proxy_url must start with http:// or https://`);
  if (!/^wss?:\/\//.test(conf.url)) throw new SvcError(ErrorCode.ConfigLint, `${what}: url must start with ws:// or wss://`);
  const auth: RequestAuth[] = [];
  if (conf.basic_auth.enabled) auth.push(new BasicAuth(conf.basic_auth));
  if (conf.oauth.enabled) auth.push(new OAuth1(conf.oauth));
  if (conf.jwt.enabled) auth.push(new JwtAuth(conf.jwt));
  return auth;
}

/**
 * Opens a websocket, the handshake signed; rejects with why it could not. `onMessage` is attached
 * before the handshake completes: frames that arrive with the server's answer are not missed.
 */
export async function dialWebsocket(conf: ClientConf, auth: RequestAuth[], onMessage?: (data: RawData) => void): Promise<WebSocket> {
  const req: OutgoingRequest = { method: 'GET', url: new URL(conf.url), headers: {} };
  for (const a of auth) await a.apply(req);
  const tls = conf.tls.enabled ? tlsConnectOptions(conf.tls) : undefined;
  let createConnection: (() => Socket) | undefined;
  if (conf.proxy_url) {
    const tunnel = await connectThroughProxy(conf.proxy_url, req.url, HANDSHAKE_MS);
    const secure = req.url.protocol === 'wss:';
    createConnection = () => (secure ? tlsConnect({ ...(tls ?? {}), socket: tunnel, servername: req.url.hostname }) : tunnel);
  }
  const client = new (ws().WebSocket)(conf.url, {
    headers: req.headers,
    ...(tls ?? {}),
    handshakeTimeout: HANDSHAKE_MS,
    ...(createConnection ? { createConnection } : {}),
  });
  if (onMessage) client.on('message', onMessage);
  await new Promise<void>((resolve, reject) => {
    client.once('open', () => {
      client.off('error', reject);
      resolve();
    });
    client.once('error', reject);
    client.once('unexpected-response', (_req, res) => reject(new Error(`the server answered ${res.statusCode} to the websocket handshake`)));
  }).catch((err: unknown) => {
    client.terminate();
    throw new Error(errorMessage(err), { cause: err });
  });
  return client;
}
