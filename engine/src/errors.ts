/** Error codes, in one place. Each error says what went wrong, where, and what to do. */
export const ErrorCode = {
  ConfigSyntax: 'E_CONFIG_SYNTAX',
  ConfigLint: 'E_CONFIG_LINT',
  ConfigEnv: 'E_CONFIG_ENV',
  ConfigFile: 'E_CONFIG_FILE',
  PluginLoad: 'E_PLUGIN_LOAD',
  UnknownComponent: 'E_UNKNOWN_COMPONENT',
  NotConnected: 'E_NOT_CONNECTED',
  Processing: 'E_PROCESSING',
  Write: 'E_WRITE',
  Rejected: 'E_REJECTED',
  Shutdown: 'E_SHUTDOWN',
  Worker: 'E_WORKER',
  Usage: 'E_USAGE',
  InputFailed: 'E_INPUT_FAILED',
  Metrics: 'E_METRICS',
  Tracing: 'E_TRACING',
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The base of every error the engine raises on purpose. */
export class SvcError extends Error {
  readonly code: ErrorCodeValue;
  constructor(code: ErrorCodeValue, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = 'SvcError';
  }
}

/**
 * Thrown by a component that lost (or never had) its connection. The runtime reconnects with
 * exponential back-off and retries; nothing is dropped.
 */
export class NotConnectedError extends SvcError {
  constructor(message = 'not connected', options?: { cause?: unknown }) {
    super(ErrorCode.NotConnected, message, options);
    this.name = 'NotConnectedError';
  }
}

/**
 * Thrown by an output's `write(batch)` when only some messages of the batch failed (Benthos'
 * `service.BatchError`): it names the failed indexes, each with its own error. The runtime
 * then retries those messages alone, so a message that was delivered is never sent again.
 * Mark every message that was not delivered, including ones the output did not try. Without
 * any index marked it means the whole batch failed, like any other error.
 */
export class BatchError extends SvcError {
  private readonly failures = new Map<number, Error>();

  /** `size` is the length of the batch written; `headline` describes the failure as a whole. */
  constructor(
    readonly size: number,
    headline: string | Error,
  ) {
    super(ErrorCode.Write, typeof headline === 'string' ? headline : headline.message, typeof headline === 'string' ? undefined : { cause: headline });
    this.name = 'BatchError';
  }

  /** Marks the message at `index` as not delivered, with its own error. */
  failed(index: number, err: Error): this {
    if (!Number.isInteger(index) || index < 0 || index >= this.size) {
      throw new RangeError(`BatchError.failed: index ${index} is outside the batch of ${this.size}; pass the index of a message in the batch written`);
    }
    this.failures.set(index, err);
    return this;
  }

  /** How many messages are marked failed (0 means the whole batch failed). */
  get failedCount(): number {
    return this.failures.size;
  }

  /** The error of the message at `index`, or undefined when it was delivered. */
  errorAt(index: number): Error | undefined {
    return this.failures.get(index);
  }

  /** The failed indexes, in batch order. */
  indexes(): number[] {
    return [...this.failures.keys()].sort((a, b) => a - b);
  }
}

/**
 * Thrown by an input that cannot go on and whose end is a failure (a line over `max_buffer`):
 * the runtime stops reading, delivers every transaction read before it, then ends the stream
 * with this error (`engine` exits 1). Not retried, unlike any other read error.
 */
export class InputFailedError extends SvcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.InputFailed, message, options);
    this.name = 'InputFailedError';
  }
}

/** A problem at a position in a config file: printed as `file:line:col message`. */
export interface ConfigIssue {
  file: string;
  line: number;
  col: number;
  message: string;
}

export function formatIssue(i: ConfigIssue): string {
  return `${i.file}:${i.line}:${i.col} ${i.message}`;
}

/** A config that cannot run: carries every issue found, not just the first. */
export class ConfigError extends SvcError {
  readonly issues: ConfigIssue[];
  constructor(issues: ConfigIssue[], code: ErrorCodeValue = ErrorCode.ConfigLint) {
    super(code, issues.map(formatIssue).join('\n'));
    this.issues = issues;
    this.name = 'ConfigError';
  }
}

/** The message of any thrown value, for logs and flags. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
