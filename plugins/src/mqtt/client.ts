/**
 * What the `mqtt` input and output share: Benthos v4's client fields (`urls`, `client_id`,
 * `dynamic_client_id_suffix`, `connect_timeout`, `will`, `user`, `password`, `keepalive`, `tls`) and
 * turning them into the options of an MqttSession. A user and password in a URL are taken out of it
 * (given as the CONNECT's credentials), and never logged.
 */
import { randomInt } from 'node:crypto';
import type { QoS } from 'mqtt-packet';
import {
  ErrorCode,
  NotConnectedError,
  SvcError,
  errorMessage,
  f,
  parseDuration,
  redactUrl,
  scrubSecrets,
  tlsConnectOptions,
  tlsSpec,
  type Infer,
} from '@svc/engine';
import { MqttSession, type Received, type SessionOptions } from './session.js';

const SCHEMES = /^(tcp|ssl|tls|mqtt|mqtts|ws|wss):$/i;
const SECURE = /^(ssl|tls|mqtts|wss):$/i;
const WEBSOCKET = /^wss?:$/i;

/** tls.enabled with a tcp:// or ws:// URL: Benthos' client (paho) connects without TLS there; refused rather than guessed. */
const plainWithTls = (url: string) =>
  `tls is enabled but "${redactUrl(url)}" is not an ssl:// or wss:// URL (Benthos connects to it without TLS): use ssl:// or wss://`;

const qosProblem = (q: number) => (q === 0 || q === 1 || q === 2 ? undefined : `qos must be 0, 1 or 2, not ${q}`);

/** `qos`: 0, 1 or 2. */
export function qosField(defaultQos: number, description: string) {
  return f.int().default(defaultQos).validate(qosProblem).describe(description);
}

/** A QoS of the config, checked again where a component is built without a lint (the API). */
export function checkedQos(component: string, field: string, q: number): QoS {
  const why = qosProblem(q);
  if (why) throw new SvcError(ErrorCode.ConfigLint, `${component}: ${field}: ${why}`);
  return q as QoS;
}

export const clientFields = {
  urls: f
    .array(f.string())
    .validate((urls) => {
      const all = expandUrls(urls);
      if (all.length === 0) return 'urls must list at least one URL, e.g. tcp://127.0.0.1:1883';
      for (const u of all) {
        const why = urlProblem(u);
        if (why) return why;
      }
      return undefined;
    })
    .describe(
      'A list of URLs to connect to, as `scheme://host:port` where scheme is `tcp` or `ssl` (`mqtt`, `mqtts`, `tls` too), or `ws://host:port/path` / `wss://` for MQTT over websockets. If an item of the list contains commas it is expanded into multiple URLs.',
    ),
  client_id: f
    .string()
    .default('')
    .describe(
      'The client identifier sent to the broker, which identifies the session (a persistent session, `clean_session: false`, needs one). Use `dynamic_client_id_suffix` to give each run a unique identifier.',
    ),
  dynamic_client_id_suffix: f
    .enum(['nanoid'])
    .optional()
    .advanced()
    .describe('Append a dynamically generated suffix to `client_id` on each run: `nanoid` appends a nanoid of 21 characters.'),
  connect_timeout: f
    .duration()
    .default('30s')
    .describe('The maximum amount of time to wait in order to establish a connection before the attempt is abandoned.'),
  will: f
    .object({
      enabled: f.bool().default(false).describe('Whether to enable last will messages.'),
      qos: qosField(0, 'Set QoS for last will message. Valid values are: 0, 1, 2.'),
      retained: f.bool().default(false).describe('Set retained for last will message.'),
      topic: f.string().default('').describe('Set topic for last will message.'),
      payload: f.string().default('').describe('Set payload for last will message.'),
    })
    .validate((w) => (w.enabled && w.topic === '' ? 'include topic to register a last will' : undefined))
    .advanced()
    .describe('A last will message, which the broker publishes when this client goes away without disconnecting (the process died, the network broke).'),
  user: f.string().default('').advanced().describe('A username to connect with.'),
  password: f.string().default('').secret().advanced().describe('A password to connect with.'),
  keepalive: f
    .int()
    .default(30)
    .validate((k) => (k >= 0 && k <= 65535 ? undefined : 'keepalive must be between 0 and 65535 seconds'))
    .advanced()
    .describe('Max seconds of inactivity before a keepalive message is sent.'),
  tls: tlsSpec.describe('Custom TLS settings for `ssl://` and `wss://` URLs (with `enabled`, every URL must be one of those).'),
};

export type ClientConfig = Infer<ReturnType<typeof f.object<typeof clientFields>>>;

/** `urls`, with comma lists expanded and blanks dropped. */
function expandUrls(urls: readonly string[]): string[] {
  return urls
    .flatMap((u) => u.split(','))
    .map((u) => u.trim())
    .filter((u) => u !== '');
}

function urlProblem(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return `"${redactUrl(raw)}" is not a URL: use scheme://host:port, e.g. tcp://127.0.0.1:1883`;
  }
  if (!SCHEMES.test(u.protocol)) return `"${redactUrl(raw)}" is not a tcp://, ssl://, ws:// or wss:// URL`;
  if (u.hostname === '') return `"${redactUrl(raw)}" names no host`;
  return undefined;
}

const NANOID_ALPHABET = 'useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict';

function nanoid(): string {
  let id = '';
  for (let i = 0; i < 21; i++) id += NANOID_ALPHABET[randomInt(64)];
  return id;
}

/** Dials the broker for one component. */
export class MqttDialer {
  readonly clientId: string;
  private readonly rawUrls: string[];
  private readonly options: Omit<SessionOptions, 'clean'>;

  constructor(
    conf: ClientConfig,
    /** `mqtt input`, `mqtt output`: starts every error message. */
    readonly component: string,
  ) {
    this.rawUrls = expandUrls(conf.urls);
    const bad = this.rawUrls.length === 0 ? 'urls must list at least one URL' : this.rawUrls.map(urlProblem).find((p) => p !== undefined);
    if (bad) throw new SvcError(ErrorCode.ConfigLint, `${component}: ${bad}`);
    if (conf.will.enabled && conf.will.topic === '') throw new SvcError(ErrorCode.ConfigLint, `${component}: include topic to register a last will`);
    const plain = conf.tls.enabled ? this.rawUrls.find((u) => !SECURE.test(new URL(u).protocol)) : undefined;
    if (plain) throw new SvcError(ErrorCode.ConfigLint, `${component}: ${plainWithTls(plain)}`);
    const willQos = checkedQos(component, 'will.qos', conf.will.qos);
    const suffix = conf.dynamic_client_id_suffix;
    if (suffix !== undefined && suffix !== 'nanoid')
      throw new SvcError(ErrorCode.ConfigLint, `${component}: unknown dynamic_client_id_suffix "${String(suffix)}": use nanoid`);
    this.clientId = conf.client_id + (suffix === 'nanoid' ? nanoid() : '');
    let username = conf.user;
    let password = conf.password;
    const urls = this.rawUrls.map((raw) => {
      const u = new URL(raw);
      // Credentials in a URL become the CONNECT's, so nothing prints them.
      if (u.username !== '' && username === '') {
        username = decodeURIComponent(u.username);
        password = decodeURIComponent(u.password);
      }
      // A websocket URL keeps its path (the handshake's); the rest is host and port.
      return new URL(`${u.protocol}//${u.host}${WEBSOCKET.test(u.protocol) ? u.pathname + u.search : ''}`);
    });
    let tls;
    try {
      tls = tlsConnectOptions(conf.tls);
    } catch (err) {
      throw new SvcError(ErrorCode.ConfigFile, `${component}: ${errorMessage(err)}`, { cause: err });
    }
    this.options = {
      urls,
      clientId: this.clientId,
      keepaliveSeconds: conf.keepalive,
      connectTimeoutMs: parseDuration(conf.connect_timeout),
      ...(username !== '' ? { username } : {}),
      ...(password !== '' ? { password } : {}),
      ...(conf.will.enabled ? { will: { topic: conf.will.topic, payload: Buffer.from(conf.will.payload), qos: willQos, retain: conf.will.retained } } : {}),
      ...(tls ? { tls } : {}),
    };
  }

  get brokers(): string {
    return this.options.urls.map((u) => u.host).join(', ');
  }

  /** Any text, with the URLs' passwords removed. */
  scrub(text: string): string {
    return scrubSecrets(text, [], this.rawUrls);
  }

  async dial(clean: boolean, onMessage?: (m: Received) => void): Promise<MqttSession> {
    try {
      return await MqttSession.open({ ...this.options, clean }, onMessage);
    } catch (err) {
      throw new NotConnectedError(`${this.component}: ${this.scrub(errorMessage(err))}`);
    }
  }
}
