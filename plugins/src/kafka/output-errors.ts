/**
 * What went wrong in the `logbus` / `kafka` output, in words an operator can act on. kafkajs
 * wraps its errors (retries exceeded → the last protocol error → ...); these helpers walk that
 * chain, tell a lost connection (the runtime reconnects) from a failed write (retried with
 * `backoff`) from one that no retry can fix, and never let a secret into the text.
 */
import { ErrorCode, SvcError } from '@svc/engine';

/** A write that failed: retried with `backoff` unless `permanent`. */
export class KafkaWriteError extends SvcError {
  constructor(
    message: string,
    /** No retry can succeed (a message too large, a partition that does not exist, ...). */
    readonly permanent: boolean,
    options?: { cause?: unknown },
  ) {
    super(ErrorCode.Write, message, options);
    this.name = 'KafkaWriteError';
  }
}

interface KafkaJsLike extends Error {
  type?: string;
  code?: string | number;
  retriable?: boolean;
  broker?: string;
  retryCount?: number;
}

/** The error and its causes, outermost first. */
export function causes(err: unknown): KafkaJsLike[] {
  const out: KafkaJsLike[] = [];
  for (let e: unknown = err; e instanceof Error && out.length < 8 && !out.includes(e); e = (e as { cause?: unknown }).cause) out.push(e);
  return out;
}

/** The Kafka protocol error type in the chain (`UNKNOWN_TOPIC_OR_PARTITION`, ...), if any. */
export function protocolType(err: unknown): string | undefined {
  return causes(err).find((e) => typeof e.type === 'string')?.type;
}

const CONNECTION_ERRORS = new Set(['KafkaJSConnectionError', 'KafkaJSConnectionClosedError', 'KafkaJSBrokerNotFound', 'KafkaJSNoBrokerAvailableError']);

/** True when the client lost (or never had) its brokers: the runtime should reconnect. */
export function isConnectionLoss(err: unknown): boolean {
  return causes(err).some((e) => CONNECTION_ERRORS.has(e.name) || /producer is disconnected|not connected/i.test(e.message));
}

export function isAuthFailure(err: unknown): boolean {
  return causes(err).some((e) => e.name === 'KafkaJSSASLAuthenticationError' || e.type === 'SASL_AUTHENTICATION_FAILED');
}

/** Broker answers no retry changes: the batch is refused at once. */
const PERMANENT_TYPES = new Set([
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  'INVALID_TOPIC_EXCEPTION',
  'INVALID_RECORD',
  'CORRUPT_MESSAGE',
  'UNSUPPORTED_COMPRESSION_TYPE',
  'UNSUPPORTED_FOR_MESSAGE_FORMAT',
  'INVALID_REQUIRED_ACKS',
]);

export function isPermanent(err: unknown): boolean {
  return causes(err).some((e) => e.name === 'PartitionError' || (e.type !== undefined && PERMANENT_TYPES.has(e.type)));
}

/** The innermost message of a kafkajs chain, with its protocol type when it has one. */
export function describeKafkaError(err: unknown): string {
  const chain = causes(err);
  if (chain.length === 0) return String(err);
  const inner = chain[chain.length - 1]!;
  const type = chain.find((e) => typeof e.type === 'string')?.type;
  const retries = chain.find((e) => typeof e.retryCount === 'number')?.retryCount;
  let text = inner.message;
  if (type && !text.includes(type)) text = `${type}: ${text}`;
  if (retries) text += ` (after ${retries} client retries)`;
  return text;
}
