/**
 * What every `nats*` component shares: Benthos' connection fields (`urls`, `max_reconnects`,
 * `tls`, `tls_handshake_first`, `auth`) and dialling the server with the `nats` client. A user and
 * password in a URL are taken out of it (the client is given them as options) and never logged.
 * The client reconnects by itself up to `max_reconnects` times; once it gives up the connection
 * is closed, reads and writes throw NotConnectedError, and the runtime dials again with back-off.
 *
 * Of Benthos' `auth` fields, `user`, `password`, `token`, `nkey_file` and `nkey` (an NKey user's
 * seed: the client signs the server's nonce) are implemented; the JWT credentials are refused at
 * load (a stream must not silently connect with other credentials). Seeds never reach a message.
 */
import { readFile } from 'node:fs/promises';
import type { ConnectionOptions, NatsConnection } from 'nats';
import { ErrorCode, SvcError, errorMessage, f, redactUrl, scrubSecrets, tlsConnectOptions, tlsSpec, type Infer } from '@svc/engine';

const NOT_IMPLEMENTED_AUTH = ['user_credentials_file', 'user_jwt', 'user_nkey_seed'] as const;
const REFUSED_AUTH = 'is not implemented: use auth.user and auth.password, auth.token, auth.nkey_file or auth.nkey';

export const connectionFields = {
  urls: f
    .array(f.string())
    .validate((urls) => {
      const all = expandUrls(urls);
      if (all.length === 0) return 'urls must list at least one URL, e.g. nats://127.0.0.1:4222';
      const other = all.find((u) => !/^(nats|tls):\/\//i.test(u) && !/^[^:/]+:\d+$/.test(u));
      return other === undefined ? undefined : `"${redactUrl(other)}" is not a nats:// or tls:// URL`;
    })
    .describe('A list of URLs to connect to. If an item of the list contains commas it will be expanded into multiple URLs.'),
  max_reconnects: f
    .int()
    .optional()
    .advanced()
    .describe('The maximum number of times to attempt to reconnect to the server. If negative, it will never stop trying to reconnect.'),
};

export const connectionTailFields = {
  tls: tlsSpec.describe('Custom TLS settings.'),
  tls_handshake_first: f.bool().default(false).advanced().describe('Perform a TLS handshake before sending the INFO protocol message.'),
  auth: f
    .object({
      nkey_file: f.string().default('').advanced().describe('An optional file containing a NKey seed.'),
      nkey: f.string().default('').secret().advanced().describe('The NKey seed.'),
      user_credentials_file: f.string().default('').advanced().describe('Not implemented: refused at load when set.'),
      user_jwt: f.string().default('').secret().advanced().describe('Not implemented: refused at load when set.'),
      user_nkey_seed: f.string().default('').secret().advanced().describe('Not implemented: refused at load when set.'),
      user: f.string().default('').advanced().describe('An optional plain text user name (given along with the corresponding user password).'),
      password: f.string().default('').secret().advanced().describe('An optional plain text password (given along with the corresponding user name).'),
      token: f.string().default('').secret().advanced().describe('An optional plain text token.'),
    })
    .validate((a) => {
      // Lint sees the fields as written: an unset one is undefined.
      const set = NOT_IMPLEMENTED_AUTH.find((k) => Boolean(a[k]));
      if (set !== undefined) return `auth.${set} ${REFUSED_AUTH}`;
      return a.nkey_file && a.nkey ? 'set one of auth.nkey_file and auth.nkey' : undefined;
    })
    .advanced()
    .describe('Optional configuration of NATS authentication parameters.'),
};

type ConnectionFields = typeof connectionFields & typeof connectionTailFields;
export type ConnectionConfig = Infer<ReturnType<typeof f.object<ConnectionFields>>>;

/** `urls`, with comma lists expanded and blanks dropped. */
function expandUrls(urls: readonly string[]): string[] {
  return urls
    .flatMap((u) => u.split(','))
    .map((u) => u.trim())
    .filter((u) => u !== '');
}

/** Dials the server for one component. */
export class NatsDialer {
  readonly servers: string[];
  private readonly rawUrls: string[];
  private readonly options: ConnectionOptions;
  private readonly nkeyFile: string;
  private readonly nkey: string;

  constructor(
    conf: ConnectionConfig,
    /** `nats input`, `nats_jetstream output`...: starts every error message. */
    readonly component: string,
    label: string,
  ) {
    this.rawUrls = expandUrls(conf.urls);
    if (this.rawUrls.length === 0) throw new SvcError(ErrorCode.ConfigLint, `${component}: urls must list at least one URL`);
    const set = NOT_IMPLEMENTED_AUTH.find((k) => conf.auth[k] !== '');
    if (set !== undefined) throw new SvcError(ErrorCode.ConfigLint, `${component}: auth.${set} ${REFUSED_AUTH}`);
    const options: ConnectionOptions = { name: label, maxReconnectAttempts: conf.max_reconnects ?? 60, reconnectTimeWait: 1000, timeout: 10_000 };
    this.servers = [];
    for (const raw of this.rawUrls) {
      // A user and password in a URL become options, so the client never prints them.
      const u = new URL(/^[a-z]+:\/\//i.test(raw) ? raw : `nats://${raw}`);
      if (u.username !== '') {
        options.user = decodeURIComponent(u.username);
        options.pass = decodeURIComponent(u.password);
      }
      this.servers.push(`${u.protocol}//${u.host}`);
    }
    options.servers = this.servers;
    if (conf.auth.user !== '') {
      options.user = conf.auth.user;
      options.pass = conf.auth.password;
    }
    if (conf.auth.token !== '') options.token = conf.auth.token;
    this.nkeyFile = conf.auth.nkey_file;
    this.nkey = conf.auth.nkey;
    const tls = tlsConnectOptions(conf.tls);
    if (tls || conf.tls_handshake_first || this.rawUrls.some((u) => /^tls:/i.test(u))) {
      options.tls = { ...(tls as Record<string, unknown>), ...(conf.tls_handshake_first ? { handshakeFirst: true } : {}) } as ConnectionOptions['tls'];
    }
    this.options = options;
  }

  /** Any text, with the URLs' passwords removed. */
  scrub(text: string): string {
    return scrubSecrets(text, this.nkey !== '' ? [this.nkey] : [], this.rawUrls);
  }

  /** An error of this component saying `what` failed, the cause scrubbed of passwords. */
  error(what: string, cause: unknown): Error {
    return new Error(`${this.component}: ${what}: ${this.scrub(errorMessage(cause))}`);
  }

  async dial(): Promise<NatsConnection> {
    const { connect, nkeyAuthenticator } = await import('nats');
    const seed = this.nkeyFile !== '' ? await this.seedFromFile() : this.nkey !== '' ? this.nkey : undefined;
    try {
      return await connect(seed === undefined ? this.options : { ...this.options, authenticator: nkeyAuthenticator(new TextEncoder().encode(seed)) });
    } catch (err) {
      throw this.error(`cannot connect to ${this.servers.join(', ')}`, err);
    }
  }

  /** The seed in `auth.nkey_file` (its first `S...` line, as a decorated seed file holds it), read at each dial. */
  private async seedFromFile(): Promise<string> {
    let text: string;
    try {
      text = await readFile(this.nkeyFile, 'utf8');
    } catch (err) {
      throw this.error(`cannot read auth.nkey_file ${this.nkeyFile}`, (err as NodeJS.ErrnoException).code ?? err);
    }
    const seed = /^\s*(S[A-Z2-7]{57})\s*$/m.exec(text)?.[1];
    if (seed === undefined) throw new Error(`${this.component}: auth.nkey_file ${this.nkeyFile} holds no NKey seed`);
    return seed;
  }
}
