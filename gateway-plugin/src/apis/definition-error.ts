import { ConfigError, ErrorCode } from '@svc/engine';

/**
 * A definition (an API, a policy, svc.conf) that cannot be used, worded as
 * `apis/petstore.json: proxy.listen_path: expected a string`: the file (when there is one), the
 * field's dotted path, the problem. A ConfigError, so callers treat it as every config error.
 */
export class DefinitionError extends ConfigError {
  readonly file: string | undefined;
  readonly field: string;

  constructor(file: string | undefined, field: string, problem: string, options: { line?: number; col?: number } = {}) {
    const where = field ? `${field}: ${problem}` : problem;
    super([{ file: file ?? '', line: options.line ?? 0, col: options.col ?? 0, message: where }], ErrorCode.ConfigLint);
    // ConfigError words its message `file:line:col message`; ours names no position (the value
    // may come from anywhere in the file), so it says file and field only.
    this.message = file ? `${file}: ${where}` : where;
    this.file = file;
    this.field = field;
  }
}
