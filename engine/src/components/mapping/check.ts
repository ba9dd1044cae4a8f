import { ErrorCode, SvcError, compileQuery, type ExecContext, type Message, type Query } from '@svc/engine';

/**
 * A compiled `check` of a `switch` case: an empty check always passes; otherwise the query must
 * give a boolean. Throws (a QueryError, or an SvcError for a non-boolean) when it cannot say.
 */
export class CaseCheck {
  private readonly query: Query | undefined;

  constructor(src: string) {
    this.query = src.trim() === '' ? undefined : compileQuery(src);
  }

  get always(): boolean {
    return this.query === undefined;
  }

  test(msg: Message, ctx: ExecContext): boolean {
    if (this.query === undefined) return true;
    const v = this.query.eval(msg, ctx);
    if (typeof v === 'boolean') return v;
    throw new SvcError(ErrorCode.Processing, `expected bool value, got ${describe(v)}`);
  }
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return `string (${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)})`;
  if (typeof v === 'number') return `number (${v})`;
  if (v instanceof Uint8Array) return 'bytes';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}
