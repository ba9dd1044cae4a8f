/**
 * What the `amqp_1` input and output share: Benthos' connection fields (`url`, `urls`, `tls`,
 * `sasl`) and dialling the broker with rhea. URLs are tried in order until one opens (Benthos'
 * failover); a user and password in a URL authenticate with SASL PLAIN, as Benthos' go-amqp
 * client does, and are never logged. The runtime owns reconnection (NotConnectedError, back-off):
 * rhea's own reconnect is off, so a lost connection is seen by the component that owns it.
 */
import type { Connection, ConnectionOptions, Container, EventContext, Receiver, Sender } from 'rhea';
import { ErrorCode, SvcError, errorMessage, f, redactUrl, scrubSecrets, tlsConnectOptions, tlsSpec, type Infer, type Logger } from '@svc/engine';

const URL_SCHEME = /^amqps?:\/\//i;

export const connectionFields = {
  url: f.string().url().optional().advanced().describe('Deprecated: use `urls`. A URL to connect to, used when `urls` is empty.'),
  urls: f
    .array(f.string())
    .url()
    .optional()
    .validate((urls) => {
      const other = expandUrls(urls ?? []).find((u) => !URL_SCHEME.test(u));
      return other === undefined ? undefined : `"${redactUrl(other)}" is not an amqp:// or amqps:// URL`;
    })
    .describe(
      'A list of URLs to connect to. The first URL to successfully establish a connection will be used until the connection is closed. If an item of the list contains commas it will be expanded into multiple URLs.',
    ),
};

export const connectionTailFields = {
  tls: tlsSpec.describe('Custom TLS settings (TLS is on for `amqps://` URLs, or when `tls.enabled` is set).'),
  sasl: f
    .object({
      mechanism: f
        .enum(['none', 'plain', 'anonymous'])
        .default('none')
        .describe('The SASL authentication mechanism to use: none, plain or anonymous. With none, a user and password in the URL use plain.'),
      user: f.string().default('').describe('A SASL plain text username. It is recommended that you use environment variables to populate this field.'),
      password: f
        .string()
        .default('')
        .secret()
        .describe('A SASL plain text password. It is recommended that you use environment variables to populate this field.'),
    })
    .advanced()
    .describe('Enables SASL authentication.'),
};

/** The lint rule of both components: a URL must be given. */
export function urlsGiven(c: { url?: string | undefined; urls?: string[] | undefined }): string | undefined {
  return expandUrls(c.urls ?? []).length === 0 && (c.url ?? '') === '' ? "field 'urls' must be set" : undefined;
}

type Fields = typeof connectionFields & typeof connectionTailFields;
type ConnectionConfig = Infer<ReturnType<typeof f.object<Fields>>>;

/** `urls`, with comma lists expanded and blanks dropped. */
function expandUrls(urls: readonly string[]): string[] {
  return urls
    .flatMap((u) => u.split(','))
    .map((u) => u.trim())
    .filter((u) => u !== '');
}

type Rhea = typeof import('rhea');

/** The rhea module (CommonJS: its API is the default export, which its typings do not say). */
export async function loadRhea(): Promise<Rhea> {
  return ((await import('rhea')) as unknown as { default: Rhea }).default;
}

/** How long one URL may take to open a connection before the next is tried. */
const OPEN_TIMEOUT_MS = 10_000;

/** An open connection and the URL it went to. */
export interface Dialled {
  readonly connection: Connection;
  readonly url: string;
}

/** Dials the broker for one component: `urls` in order, the first that opens wins. */
export class Amqp1Dialer {
  readonly urls: string[];
  private readonly tls: ReturnType<typeof tlsConnectOptions>;
  private container: Container | undefined;

  constructor(
    private readonly conf: ConnectionConfig,
    /** `amqp_1 input` or `amqp_1 output`: starts every error message. */
    readonly component: string,
    private readonly label: string,
    private readonly log: Logger,
  ) {
    const urls = expandUrls(conf.urls ?? []);
    this.urls = urls.length > 0 ? urls : conf.url ? [conf.url] : [];
    if (this.urls.length === 0) throw new SvcError(ErrorCode.ConfigLint, `${component}: field 'urls' must be set`);
    for (const u of this.urls) {
      if (!URL_SCHEME.test(u)) throw new SvcError(ErrorCode.ConfigLint, `${component}: "${redactUrl(u)}" is not an amqp:// or amqps:// URL`);
    }
    this.tls = tlsConnectOptions(conf.tls);
  }

  /** Any text, with the URLs' and SASL passwords removed. */
  scrub(text: string): string {
    return scrubSecrets(text, this.conf.sasl.password ? [this.conf.sasl.password] : [], this.urls);
  }

  /** An error of this component saying `what` failed, the cause scrubbed of passwords. */
  error(what: string, cause: unknown): Error {
    return new Error(`${this.component}: ${what}: ${this.scrub(describe(cause))}`);
  }

  /** Opens a connection to the first URL that answers; throws naming every URL tried (redacted) and why. */
  async dial(): Promise<Dialled> {
    if (!this.container) {
      // Loaded at the first dial, not at start-up (a stream without amqp_1 has no use for it).
      const rhea = await loadRhea();
      this.container = rhea.create_container({ id: this.label || this.component.replace(' ', '_') });
      // An error no link, session or connection handled reaches the container: never crash for it.
      this.container.on('error', (err: unknown) => this.log.debug(`${this.component}: ${this.scrub(describe(err))}`));
    }
    const failures: string[] = [];
    for (const url of this.urls) {
      try {
        return { connection: await this.open(this.container, url), url };
      } catch (err) {
        failures.push(`${redactUrl(url)}: ${this.scrub(describe(err))}`);
        this.log.debug(`${this.component}: cannot connect to ${redactUrl(url)}, trying the next URL`);
      }
    }
    const which = this.urls.length === 1 ? 'cannot connect to' : `cannot connect to any of ${this.urls.length} URLs:`;
    throw new Error(`${this.component}: ${which} ${failures.join('; ')}`);
  }

  private options(url: string): ConnectionOptions {
    const u = new URL(url);
    const secure = /^amqps:/i.test(url) || this.tls !== undefined;
    const opts: Record<string, unknown> = {
      host: u.hostname,
      port: Number(u.port || (secure ? 5671 : 5672)),
      reconnect: false,
      idle_time_out: 30_000,
      ...(secure ? { transport: 'tls', servername: u.hostname, ...this.tls } : { transport: 'tcp' }),
    };
    const sasl = this.conf.sasl;
    const user = sasl.mechanism === 'plain' ? sasl.user : decodeURIComponent(u.username);
    const password = sasl.mechanism === 'plain' ? sasl.password : decodeURIComponent(u.password);
    if (sasl.mechanism === 'anonymous') opts.username = 'anonymous';
    else if (user !== '') Object.assign(opts, { username: user, password });
    return opts as unknown as ConnectionOptions;
  }

  private open(container: Container, url: string): Promise<Connection> {
    return new Promise<Connection>((resolve, reject) => {
      const connection = container.connect(this.options(url));
      const fail = (why: unknown) => {
        clearTimeout(timer);
        abandon(connection);
        reject(why instanceof Error ? why : new Error(describe(why)));
      };
      const timer = setTimeout(() => fail(new Error(`no answer within ${OPEN_TIMEOUT_MS / 1000} s`)), OPEN_TIMEOUT_MS);
      connection.once('connection_open', () => {
        clearTimeout(timer);
        connection.removeAllListeners();
        resolve(connection);
      });
      connection.once('connection_error', (ctx: EventContext) => fail(connectionError(ctx)));
      connection.once('disconnected', (ctx: EventContext) => fail(ctx.error ?? connectionError(ctx)));
      connection.on('error', (err: unknown) => fail(err));
    });
  }
}

/** Drops a connection no link will use: its listeners go, what it reports later is ignored, and it closes. */
function abandon(connection: Connection): void {
  connection.removeAllListeners();
  connection.on('error', () => undefined);
  connection.on('disconnected', () => undefined);
  try {
    connection.close();
  } catch {
    // never opened
  }
}

/**
 * Opens a link on `connection` (`open` makes it: a receiver or a sender) and waits for the broker:
 * resolves with the link once `opened` fires, both cleared of the listeners used here; rejects with
 * why when the link (`failed`, its error read by `linkError`), its session or the connection fails
 * first, and then abandons the connection.
 */
export async function openLink<L extends Receiver | Sender>(
  connection: Connection,
  open: () => L,
  opened: 'receiver_open' | 'sender_open',
  failed: 'receiver_error' | 'sender_error',
  linkError: (ctx: EventContext) => unknown,
): Promise<L> {
  let link: L;
  try {
    link = await new Promise<L>((resolve, reject) => {
      const l = open();
      l.once(opened, () => resolve(l));
      l.once(failed, (ctx: EventContext) => reject(new Error(describe(linkError(ctx) ?? 'the broker refused the link'))));
      connection.once('disconnected', (ctx: EventContext) => reject(new Error(connectionError(ctx))));
      connection.once('session_error', (ctx: EventContext) => reject(new Error(describe(ctx.session?.error ?? 'the session ended'))));
    });
  } catch (err) {
    abandon(connection);
    throw err;
  }
  connection.removeAllListeners();
  link.removeAllListeners();
  return link;
}

/** The error a connection event carries, as text. */
export function connectionError(ctx: EventContext): string {
  const e = ctx.connection?.error as { condition?: string; description?: string } | undefined;
  if (e && (e.condition || e.description)) return [e.condition, e.description].filter(Boolean).join(': ');
  return ctx.error ? describe(ctx.error) : 'the connection was closed';
}

/** An AMQP error ({condition, description}), an Error, or anything else, as one line of text. */
export function describe(err: unknown): string {
  if (err && typeof err === 'object' && ('condition' in err || 'description' in err)) {
    const e = err as { condition?: unknown; description?: unknown };
    return [e.condition, e.description].filter((x) => x !== undefined && x !== '').join(': ') || errorMessage(err);
  }
  const text = errorMessage(err);
  return /ECONNREFUSED/.test(text) ? `${text} (is the broker running and listening there?)` : text;
}
