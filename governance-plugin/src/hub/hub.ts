/**
 * The governance hub as one long-running part (`engine hub`): the database, the REST API and
 * web page on `http.address`, the agents' gRPC service on `grpc.address` (TLS, or plaintext on a
 * loopback address only). At its first start it makes the license issuer key and the `admin`
 * user, whose one-time password is printed once on stdout and must be changed at first login.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Lifecycle, Logger } from '@svc/engine';
import { HttpListener } from '@svc/engine/kit';
import { issueLicense, issuerId, newIssuerKey } from '../license/license.js';
import { grpc, governanceService, isLoopbackHost } from '../wire/governance-wire.js';
import { AgentStreams } from './agent-streams.js';
import type { HubConfig } from './hub-config.js';
import { HubStore } from './hub-store.js';
import { hashPassword, newSecret } from './passwords.js';
import { RestApi } from './rest-api.js';
import { openPglite, openPostgres, type Sql } from './sql.js';

const ISSUER_KEY = 'license_issuer_key';
const WEB = fileURLToPath(new URL('../../web/', import.meta.url));

/** Opens the configured database and its schema. */
export async function openStore(config: HubConfig): Promise<HubStore> {
  const sql: Sql = config.storage.kind === 'embedded' ? await openPglite(config.storage.dir) : await openPostgres(config.storage.url, config.storage);
  const store = new HubStore(sql);
  await store.migrate();
  return store;
}

/** The hub's license issuer key, made at the first start (a replica that loses the race reads the winner's). */
export async function issuerKeyOf(store: HubStore): Promise<string> {
  return (await store.setting(ISSUER_KEY)) ?? store.settingOnce(ISSUER_KEY, newIssuerKey());
}

/**
 * What the page is allowed: its own script and API, its one inline stylesheet (by hash), no
 * framing (clickjacking), no sniffing a response into another type.
 */
function pageSecurityHeaders(html: string): Record<string, string> {
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`);
  return {
    'content-security-policy': `default-src 'none'; script-src 'self'; style-src ${styles.join(' ') || "'none'"}; connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
}

function hostOf(address: string): string {
  const i = address.lastIndexOf(':');
  return i < 0 ? address : address.slice(0, i);
}

export class Hub implements Lifecycle {
  readonly name = 'governance hub';
  private store: HubStore | undefined;
  private streams: AgentStreams | undefined;
  private http: HttpListener | undefined;
  private grpcServer: grpc.Server | undefined;
  /** Where the servers listen once started (tests read the ports picked for `:0`). */
  httpPort = 0;
  grpcPort = 0;

  constructor(
    private readonly config: HubConfig,
    private readonly log: Logger,
    private readonly print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  ) {}

  async start(): Promise<void> {
    const { config, log } = this;
    if (!config.tls && !isLoopbackHost(hostOf(config.grpcAddress)))
      throw new Error(
        `grpc.address ${config.grpcAddress} is not a loopback address: set grpc.tls (cert_file, key_file); plaintext gRPC is only allowed on this machine`,
      );
    const store = (this.store = await openStore(config));
    const issuerKey = await issuerKeyOf(store);
    const issuer = issuerId(issuerKey);
    const password = newSecret();
    if (await store.createUserOnce('admin', await hashPassword(password))) {
      this.print(`admin password (shown once; change it at first login): ${password}`);
    }
    const streams = (this.streams = new AgentStreams(store, issuer, log, config.heartbeatIntervalMs, {
      maxBytes: config.syncMaxBytes,
      idleMs: config.syncIdleTimeoutMs,
    }));
    const rest = new RestApi(
      {
        store,
        heartbeatIntervalMs: config.heartbeatIntervalMs,
        inactiveAfterMissed: config.inactiveAfterMissed,
        resync: () => streams.resync(),
        syncProgress: (id) => streams.syncProgress(id),
        disconnect: (id) => streams.disconnect(id),
        license: (sub, seconds) => issueLicense(issuerKey, sub, seconds),
        agentAddress: (requestHost) => {
          const host = hostOf(config.grpcAddress);
          // Listening on every address: agents reach it by the name the caller reached the hub by.
          const wildcard = host === '' || host === '0.0.0.0' || host === '[::]' || host === '::';
          const shown = wildcard && requestHost ? hostOf(requestHost.includes(':') ? requestHost : `${requestHost}:0`) : host;
          return `${shown}:${this.grpcPort}`;
        },
      },
      log,
      !isLoopbackHost(hostOf(config.httpAddress)),
    );
    const page = await Promise.all(['index.html', 'hub.js'].map((f) => readFile(WEB + f)));
    const pageHeaders = pageSecurityHeaders(page[0]!.toString('utf8'));
    this.http = new HttpListener({
      name: 'hub http',
      address: config.httpAddress,
      logger: log,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      handler: (req, res) => {
        const path = (req.url ?? '/').split('?')[0];
        if (path === '/' || path === '/index.html')
          return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...pageHeaders }).end(page[0]);
        if (path === '/hub.js')
          return void res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store', ...pageHeaders }).end(page[1]);
        res.setHeader('x-content-type-options', 'nosniff');
        rest.handle(req, res);
      },
    });
    await this.http.start();
    this.httpPort = this.http.address().port;
    const server = (this.grpcServer = new grpc.Server({ 'grpc.keepalive_time_ms': 30_000, 'grpc.max_receive_message_length': 16 * 1024 * 1024 }));
    server.addService(governanceService(), streams.handlers());
    const credentials = config.tls
      ? grpc.ServerCredentials.createSsl(null, [{ cert_chain: await readFile(config.tls.certFile), private_key: await readFile(config.tls.keyFile) }])
      : grpc.ServerCredentials.createInsecure();
    this.grpcPort = await new Promise<number>((resolve, reject) =>
      server.bindAsync(config.grpcAddress, credentials, (err, port) => (err ? reject(err) : resolve(port))),
    );
    log.info(
      `hub listening: http://${this.http.address().host}:${this.httpPort} (REST, web page), gRPC ${hostOf(config.grpcAddress)}:${this.grpcPort}${config.tls ? ' (TLS)' : ' (plaintext, loopback)'}`,
    );
  }

  async stop(timeoutMs: number): Promise<boolean> {
    await this.streams?.close();
    const server = this.grpcServer;
    if (server) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(
          () => {
            server.forceShutdown();
            resolve();
          },
          Math.min(timeoutMs, 5000),
        );
        server.tryShutdown(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    await this.http?.close();
    await this.store?.sql.close();
    return true;
  }

  health(): string[] {
    return [];
  }
}
