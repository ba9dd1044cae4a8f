/**
 * What the `amqp_0_9` input and output share: the `urls` and `tls` fields, and dialling the
 * broker: URLs tried in order until one connects (failover), with the password redacted from
 * every error. The runtime owns reconnection (NotConnectedError, back-off); this only dials.
 */
import type * as Amqplib from 'amqplib';
import type { ChannelModel } from 'amqplib';
import { ErrorCode, SvcError, errorMessage, f, redactUrl, scrubSecrets, type Logger } from '@svc/engine';
import { tlsConnectOptions, tlsSpec, type TlsConfig } from '@svc/engine';

/** The connection fields, spread into both components' specs. */
export const connectionFields = {
  urls: f
    .array(f.string())
    .url()
    .validate((urls) => {
      const all = expandUrls(urls);
      if (all.length === 0) return 'urls must list at least one URL, e.g. amqp://guest:guest@127.0.0.1:5672/';
      const other = all.find((u) => !/^amqps?:\/\//i.test(u));
      return other === undefined ? undefined : `"${redactUrl(other)}" is not an amqp:// or amqps:// URL`;
    })
    .describe(
      'URLs to connect to, tried in order: the first that connects is used until the connection is lost, then the list is tried again from the start. Items containing commas are expanded. A password in a URL is never logged.',
    ),
  tls: tlsSpec.describe(
    'Custom TLS settings for `amqps://` URLs (TLS is automatic for them). With client certificates and no user in the URL, the EXTERNAL mechanism authenticates.',
  ),
};

/** `urls`, with comma lists expanded and blanks dropped. */
export function expandUrls(urls: readonly string[]): string[] {
  return urls
    .flatMap((u) => u.split(','))
    .map((u) => u.trim())
    .filter((u) => u !== '');
}

/**
 * Seconds between heartbeats unless a URL sets `heartbeat`: as the Go client Benthos uses
 * (RabbitMQ would suggest 60), so a broker that vanished without closing the socket is noticed.
 */
const HEARTBEAT_SECONDS = 10;
/** How long one URL may take to open a connection before the next is tried. */
const CONNECT_TIMEOUT_MS = 10_000;

/** Dials the broker for one component: `urls` in order, the first that connects wins. */
export class Dialer {
  readonly urls: string[];
  private readonly tls: ReturnType<typeof tlsConnectOptions>;

  constructor(
    urls: readonly string[],
    tls: TlsConfig,
    /** `amqp_0_9 input` or `amqp_0_9 output`: starts every error message. */
    readonly component: string,
    private readonly log: Logger,
  ) {
    this.urls = expandUrls(urls);
    if (this.urls.length === 0) throw new SvcError(ErrorCode.ConfigLint, `${component}: urls must list at least one URL`);
    for (const u of this.urls) {
      if (!/^amqps?:\/\//i.test(u)) throw new SvcError(ErrorCode.ConfigLint, `${component}: "${redactUrl(u)}" is not an amqp:// or amqps:// URL`);
    }
    this.tls = tlsConnectOptions(tls);
    if (this.tls && !this.urls.some((u) => /^amqps:/i.test(u))) {
      log.warn(`${component}: tls.enabled is set but no URL is amqps://, so the connection is not encrypted`);
    }
  }

  /** The URL as logs may show it. */
  redacted(url: string): string {
    return redactUrl(url);
  }

  /** Any text, with the URLs' passwords removed. */
  scrub(text: string): string {
    return scrubSecrets(text, [], this.urls);
  }

  /** An error of this component saying `what` failed, the cause scrubbed of passwords, then what to do. */
  error(what: string, cause: unknown, todo?: string): Error {
    return new Error(`${this.component}: ${what}: ${describeBrokerError(this.scrub(errorMessage(cause)))}${todo ? ` (${todo})` : ''}`);
  }

  /** Connects to the first URL that answers; throws naming every URL tried (redacted) and why. */
  async dial(): Promise<{ model: ChannelModel; url: string }> {
    const failures: string[] = [];
    // Loaded at the first dial, not at start-up (a stream without amqp has no use for it).
    const amqplib = (await import('amqplib')).default as unknown as typeof Amqplib;
    for (const url of this.urls) {
      try {
        const model = await amqplib.connect(withHeartbeat(url), this.socketOptions(amqplib, url));
        return { model, url };
      } catch (err) {
        failures.push(`${redactUrl(url)}: ${describeBrokerError(this.scrub(errorMessage(err)))}`);
        this.log.debug(`${this.component}: cannot connect to ${redactUrl(url)}, trying the next URL`);
      }
    }
    const which = this.urls.length === 1 ? 'cannot connect to' : `cannot connect to any of ${this.urls.length} URLs:`;
    return Promise.reject(new Error(`${this.component}: ${which} ${failures.join('; ')}`));
  }

  private socketOptions(amqplib: typeof Amqplib, url: string): Parameters<typeof Amqplib.connect>[1] {
    const opts: Record<string, unknown> = { timeout: CONNECT_TIMEOUT_MS, noDelay: true };
    if (this.tls && /^amqps:/i.test(url)) {
      Object.assign(opts, this.tls);
      // Client certificates and no user in the URL: authenticate with the certificate.
      if (this.tls.cert !== undefined && !/^amqps:\/\/[^/?#]*@/i.test(url)) opts.credentials = amqplib.credentials.external();
    }
    return opts as Parameters<typeof Amqplib.connect>[1];
  }
}

/** The URL with `heartbeat` set, unless it sets one itself. */
function withHeartbeat(url: string): string {
  if (/[?&]heartbeat=/.test(url)) return url;
  return `${url}${url.includes('?') ? '&' : '?'}heartbeat=${HEARTBEAT_SECONDS}`;
}

/** amqplib's wording of broker refusals, made to say what to do where it is not obvious. */
export function describeBrokerError(message: string): string {
  if (/ACCESS.REFUSED/i.test(message) && /Login was refused|Handshake terminated/i.test(message)) {
    return `${message} (check the user and password in the URL)`;
  }
  if (/ECONNREFUSED/.test(message)) return `${message} (is the broker running and listening there?)`;
  return message;
}
