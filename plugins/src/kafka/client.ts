/**
 * What the `logbus` (alias `kafka`) input and output share: the connection fields
 * (`addresses`, `client_id`, `target_version`, `rack_id`, `tls`, `sasl`) and the kafkajs client
 * built from them, logging through the component's logger with secrets left out.
 */
import type { Kafka, KafkaConfig, LogEntry, SASLOptions } from 'kafkajs';
import { kafkajs } from './kafkajs.js';
import { ErrorCode, SvcError, f, type Infer, type Logger } from '@svc/engine';
import { tlsConnectOptions, tlsSpec } from '@svc/engine';
import { registerCompressionCodecs } from './compression.js';

export const saslSpec = f
  .object({
    mechanism: f
      .enum(['none', 'PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER'])
      .default('none')
      .describe('The SASL mechanism; plain text authentication usually also needs TLS.'),
    user: f.string().default('').describe('The user (PLAIN, SCRAM).'),
    password: f.string().default('').secret().describe('The password (PLAIN, SCRAM).'),
    access_token: f.string().default('').secret().describe('A static OAUTHBEARER token.'),
    token_cache: f.string().default('').advanced().describe('A cache resource to fetch OAUTHBEARER tokens from.'),
    token_key: f.string().default('').advanced().describe('The key of the token in `token_cache` (required with it).'),
  })
  .validate((s) => {
    const mechanism = s.mechanism ?? 'none';
    if ((mechanism === 'PLAIN' || mechanism.startsWith('SCRAM')) && !s.user) return `mechanism ${s.mechanism} needs a user`;
    if (mechanism === 'OAUTHBEARER' && !s.access_token && !s.token_cache) return 'mechanism OAUTHBEARER needs access_token or token_cache';
    if (s.token_cache && !s.token_key) return 'token_key is required with token_cache';
    return undefined;
  })
  .describe('SASL authentication with the brokers.');

/** The connection fields, spread into both components' specs. */
export const clientFields = {
  addresses: f.array(f.string()).describe('Broker addresses (`host:port`) to bootstrap from; items containing commas are expanded.'),
  client_id: f.string().default('svc').describe('The client id the brokers see.'),
  target_version: f
    .string()
    .default('')
    .advanced()
    .describe('The protocol version to assume, e.g. 2.1.0. The client negotiates API versions with each broker, so this is accepted for compatibility.'),
  rack_id: f.string().default('').advanced().describe('The rack of this client (fetches from the closest replica when the brokers allow it).'),
  tls: tlsSpec,
  sasl: saslSpec,
};

// Only its type is used: the fields are spread into each kafka component's own spec.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
const clientSpec = f.object(clientFields);
export type ClientConfig = Infer<typeof clientSpec>;

/** `addresses`, with comma lists expanded and blanks dropped. */
export function expandList(items: readonly string[]): string[] {
  return items
    .flatMap((a) => a.split(','))
    .map((a) => a.trim())
    .filter((a) => a !== '');
}

function sasl(conf: ClientConfig['sasl']): SASLOptions | undefined {
  switch (conf.mechanism) {
    case 'none':
      return undefined;
    case 'PLAIN':
      return { mechanism: 'plain', username: conf.user, password: conf.password };
    case 'SCRAM-SHA-256':
      return { mechanism: 'scram-sha-256', username: conf.user, password: conf.password };
    case 'SCRAM-SHA-512':
      return { mechanism: 'scram-sha-512', username: conf.user, password: conf.password };
    case 'OAUTHBEARER': {
      if (conf.token_cache !== '')
        throw new SvcError(ErrorCode.ConfigLint, 'sasl.token_cache: cache resources are not available in this engine; use sasl.access_token');
      const value = conf.access_token;
      return { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value }) };
    }
  }
}

type Level = 'warn' | 'debug' | 'trace';
/** Our level for a kafkajs level (its `logLevel` numbers: ERROR 1, WARN 2, INFO 4, DEBUG 5). */
const levels: Record<number, Level> = {
  1: 'warn',
  2: 'warn',
  4: 'debug', // kafkajs is chatty at info (every join, every commit): our debug
  5: 'trace',
};
const levelNames = { warn: 'WARN', debug: 'DEBUG', trace: 'TRACE' } as const;

/**
 * kafkajs log entries, through our logger (its own `password`-like fields never reach it).
 * kafkajs logs at ERROR what it retries (an error response in a rebalance, a closed socket, a
 * broker that went away): our warnings. What it gives up on reaches the component, which reports
 * it as an error with its own name.
 */
function logCreator(logger: Logger) {
  return () =>
    ({ level, log }: LogEntry) => {
      const name = levels[level] ?? 'debug';
      if (!logger.enabled(levelNames[name])) return;
      const { message, timestamp: _t, logger: _l, ...rest } = log as Record<string, unknown>;
      const fields: Record<string, string | number | boolean> = {};
      for (const [k, v] of Object.entries(rest)) {
        if (/pass|secret|token|sasl/i.test(k)) continue;
        if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') fields[k] = v;
      }
      logger[name](`kafka: ${String(message)}`, fields);
    };
}

/** The kafkajs options for a component's connection fields. */
export function kafkaOptions(conf: ClientConfig, logger: Logger, extra: Partial<KafkaConfig> = {}): KafkaConfig {
  const brokers = expandList(conf.addresses);
  if (brokers.length === 0) throw new SvcError(ErrorCode.ConfigLint, 'addresses: at least one broker address is required');
  const ssl = tlsConnectOptions(conf.tls);
  return {
    clientId: conf.client_id,
    brokers,
    ...(ssl ? { ssl } : {}),
    ...(conf.sasl.mechanism !== 'none' ? { sasl: sasl(conf.sasl) } : {}),
    logLevel: kafkajs().logLevel.WARN,
    logCreator: logCreator(logger),
    ...extra,
  };
}

/** A kafkajs client for a component's connection fields, able to read and write every codec. */
export function kafkaClient(conf: ClientConfig, logger: Logger, extra: Partial<KafkaConfig> = {}): Kafka {
  registerCompressionCodecs();
  return new (kafkajs().Kafka)(kafkaOptions(conf, logger, extra));
}
