/**
 * Errors of the mapping language: {@link InterpError} for a source that does not compile
 * (with its position), and {@link QueryError} for a value that fails at run time. Runtime
 * messages follow Bloblang's wording (`expected number value, got string from field
 * \`this.a\` ("abc")`) so that users can search for them.
 */
import { ErrorCode, SvcError } from '../errors.js';
import { describeValue, typeOf } from './values.js';

/** A mapping, query or interpolation that does not compile; `line`/`col` are 1-based. */
export class InterpError extends SvcError {
  readonly line: number;
  readonly col: number;
  /** The message without the position prefix. */
  readonly reason: string;
  constructor(reason: string, line: number, col: number) {
    super(ErrorCode.ConfigSyntax, `line ${line} char ${col}: ${reason}`);
    this.name = 'InterpError';
    this.line = line;
    this.col = col;
    this.reason = reason;
  }
}

/** A failure while evaluating a query (code E_PROCESSING); `catch()` and `|` recover from these. */
export class QueryError extends SvcError {
  constructor(message: string) {
    super(ErrorCode.Processing, message);
    this.name = 'QueryError';
  }
}

/** A value of the wrong type: the message names the query it came from once known. */
export class TypeError_ extends QueryError {
  private src = '';
  constructor(
    private readonly actual: unknown,
    private readonly expected: string[],
  ) {
    super('');
    this.message = this.render();
  }

  /** Names the query that produced the value (once): `... from field \`this.a\``. */
  from(annotation: string): QueryError {
    if (this.src === '' && annotation !== '') {
      this.src = annotation;
      this.message = this.render();
    }
    return this;
  }

  private render(): string {
    let s = this.expected.length ? `expected ${joinTypes(this.expected)} value` : 'unexpected value';
    s += `, got ${typeOf(this.actual)}`;
    if (this.src) s += ` from ${this.src}`;
    const v = describeValue(this.actual);
    if (v !== '') s += ` (${v})`;
    return s;
  }
}

/** An error already attributed to a query (`field \`this.a\`: value is null`), or naming its failed line. */
export class AttributedError extends QueryError {}

function joinTypes(ts: string[]): string {
  if (ts.length <= 1) return ts[0] ?? '';
  let s = '';
  for (let i = 0; i < ts.length; i++) {
    if (i > 0) s += ts.length > 2 && i < ts.length - 1 ? ', ' : ' or ';
    s += ts[i];
  }
  return s;
}

export function typeError(actual: unknown, ...expected: string[]): TypeError_ {
  return new TypeError_(actual, expected);
}

/** Two operands that cannot be combined: `cannot add types string (from ...) and number (from ...)`. */
export function mismatch(op: string, lAnn: string, rAnn: string, l: unknown, r: unknown): QueryError {
  return new AttributedError(`cannot ${op} types ${typeOf(l)} (from ${lAnn}) and ${typeOf(r)} (from ${rAnn})`);
}

/**
 * Attributes an error to the query that produced the value a method or operator rejected,
 * as Bloblang's ErrFrom does: type errors get a `from`, other errors a prefix, never twice.
 */
export function errFrom(err: unknown, annotation: string): QueryError {
  if (err instanceof TypeError_) return err.from(annotation);
  if (err instanceof AttributedError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return new AttributedError(annotation ? `${annotation}: ${msg}` : msg);
}

/** An error that is already complete and attributed (an argument's, named by its method): no `from` is added. */
export function argumentError(message: string): QueryError {
  return new AttributedError(message);
}

/** A bad constant argument that Benthos reports as it is, without the method's name (`encrypt_aes`'s key). */
export class ArgumentError extends QueryError {}

/** An error of a Benthos plugin method: its text stays as it is, never attributed to the target. */
export function pluginError(err: unknown): QueryError {
  return err instanceof AttributedError ? err : new AttributedError(err instanceof Error ? err.message : String(err));
}

/** Wraps any thrown value as a QueryError without changing its text. */
export function asQueryError(err: unknown): QueryError {
  if (err instanceof QueryError) return err;
  if (err instanceof Error) {
    // Stack overflows from runaway recursion surface as errors, not crashes.
    return new QueryError(err.message);
  }
  return new QueryError(String(err));
}
