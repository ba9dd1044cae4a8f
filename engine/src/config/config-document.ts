/**
 * A config document a plugin reads (a gateway's svc.conf, a hub.yaml, an agent's config): YAML or
 * JSON, read against an `f` spec by the same validator as the engine's own configs. Invariant:
 * every problem is a {@link ConfigIssue} with the file, line and column it is at, whatever the
 * format: a YAML or JSON syntax error, an unset `${VAR}`, a wrong type, a field the spec does not
 * name, or a check the caller adds afterwards with {@link ConfigDocument.problem}.
 *
 * JSON is checked by `JSON.parse` first (so what is refused is exactly what is not JSON; V8 names
 * no position for some errors, the scanner of json-error-offset.ts finds it), then read with
 * JSON's types: a string field takes only a string, a number only a number. An issue never quotes
 * a string value (a document holds tokens and passwords). With the spec
 * `f.any()` a JSON document's value is `JSON.parse`'s, as written. An absent optional field is
 * left out of the value (no key holding `undefined`).
 *
 *   const doc = parseConfigDocument(text, 'hub.yaml', spec);
 *   if (doc.value?.port === 0) doc.problem(['port'], 'port: must not be 0');
 *   const config = doc.result(); // or a ConfigError: `hub.yaml:3:9 expected an integer at port, ...`
 */
import { readFile } from 'node:fs/promises';
import { LineCounter, isMap, isSeq, type Document, type Node } from 'yaml';
import { ConfigError, ErrorCode, type ConfigIssue } from '../errors.js';
import { registry } from '../plugin/registry.js';
import { resolveAliases } from './aliases.js';
import { substituteEnv } from './env.js';
import { jsonErrorOffset } from './json-error-offset.js';
import type { Field } from './spec.js';
import { duplicateKeys } from './unique-keys.js';
import { Validator } from './validate.js';
import { parseYamlDocument } from './yaml-document.js';

export type DocumentFormat = 'yaml' | 'json';

export interface DocumentOptions {
  /** Default: `json` for a `.json` or `.conf` file, `yaml` otherwise. */
  format?: DocumentFormat;
  /** Substitutes `${VAR}` and `${VAR:default}` from this environment before parsing (the engine's rules, env.ts). */
  env?: Record<string, string | undefined>;
  /** Called for a field the spec does not name (its dotted path, where it is); without it such a field is an issue. */
  unknownField?: (path: string, at: ConfigIssue) => void;
  /** What the document is, for the error when its top level is not an object (`the gateway config`). */
  what?: string;
}

/** One document read: its value (undefined when it could not be read) and every issue found. */
export class ConfigDocument<T> {
  private doc: Document | undefined;
  private lines: LineCounter | undefined;

  constructor(
    readonly file: string,
    private readonly text: string,
    readonly value: T | undefined,
    readonly issues: ConfigIssue[],
    parsed?: { doc: Document; lines: LineCounter },
  ) {
    this.doc = parsed?.doc;
    this.lines = parsed?.lines;
  }

  /** Where the value at `path` is written, or its nearest written parent (the document's start for none). */
  at(path: readonly (string | number)[]): ConfigIssue {
    if (this.doc === undefined) {
      this.lines = new LineCounter();
      this.doc = parseYamlDocument(this.text, this.lines);
    }
    let node: Node | undefined;
    for (let n = path.length; n >= 0 && node === undefined; n--) {
      const found = n === 0 ? this.doc.contents : this.doc.getIn(path.slice(0, n), true);
      if (found !== null && typeof found === 'object' && 'range' in found) node = found as Node;
    }
    const pos = this.lines!.linePos(node?.range?.[0] ?? 0);
    return { file: this.file, line: pos.line, col: pos.col, message: '' };
  }

  /** Adds a problem found after reading (a rule the spec cannot say), placed at `path`. */
  problem(path: readonly (string | number)[], message: string): void {
    this.issues.push({ ...this.at(path), message });
  }

  /** The value, or a ConfigError carrying every issue, in the order of the file. */
  result(): T {
    if (this.issues.length > 0 || this.value === undefined) {
      const issues = [...this.issues].sort((a, b) => a.line - b.line || a.col - b.col);
      throw new ConfigError(issues.length > 0 ? issues : [{ file: this.file, line: 1, col: 1, message: 'the document is empty' }]);
    }
    return this.value;
  }
}

function formatOf(file: string, options: DocumentOptions): DocumentFormat {
  return options.format ?? (/\.(json|conf)$/i.test(file) ? 'json' : 'yaml');
}

/** Reads `text` (the content of `file`) against `spec`; never throws for what the text says. */
export function parseConfigDocument<T>(text: string, file: string, spec: Field<T>, options: DocumentOptions = {}): ConfigDocument<T> {
  const issues: ConfigIssue[] = [];
  const format = formatOf(file, options);
  if (options.env !== undefined) {
    const sub = substituteEnv(text, options.env);
    for (const p of sub.problems) issues.push({ file, line: p.line, col: p.col, message: p.message });
    text = sub.text;
    if (issues.length > 0) return new ConfigDocument<T>(file, text, undefined, issues);
  }
  let json: unknown;
  if (format === 'json') {
    try {
      json = JSON.parse(text);
    } catch (err) {
      issues.push(jsonIssue(text, file, err));
      return new ConfigDocument<T>(file, text, undefined, issues);
    }
    // As written: nothing to check or default.
    if (spec.kind === 'any' && spec.check === undefined) return new ConfigDocument<T>(file, text, json as T, issues);
  }
  const lines = new LineCounter();
  const doc = parseYamlDocument(text, lines);
  const at = (offset: number) => ({ file, ...lines.linePos(offset) });
  for (const e of doc.errors) issues.push({ ...at(e.pos[0]), message: `YAML syntax error: ${e.message.split('\n')[0]}` });
  // JSON keeps the last of a key written twice (as JSON.parse and Go do); YAML refuses it.
  if (doc.errors.length === 0 && format === 'yaml') {
    for (const d of duplicateKeys(doc.contents as Node | null)) {
      issues.push({ ...at(d.offset), message: `YAML syntax error: Map keys must be unique ("${d.key}" is written twice)` });
    }
  }
  if (issues.length > 0) return new ConfigDocument<T>(file, text, undefined, issues, { doc, lines });
  const root = doc.contents as Node | null;
  const kind = json === undefined ? (root === null ? 'nothing' : isMap(root) ? 'an object' : isSeq(root) ? 'an array' : 'a scalar') : jsonKind(json);
  if (spec.kind === 'object' && root !== null && kind !== 'an object') {
    issues.push({ file, line: 1, col: 1, message: `expected an object${options.what ? ` (${options.what})` : ''}, got ${kind}` });
    return new ConfigDocument<T>(file, text, undefined, issues, { doc, lines });
  }
  const validator = new Validator(registry(), file, lines, resolveAliases(root, file, lines, issues), {
    strict: format === 'json',
    hideStrings: true,
    ...(options.unknownField === undefined ? {} : { unknownField: (path, key) => options.unknownField!(path, { ...at(key.range?.[0] ?? 0), message: '' }) }),
  });
  const value = withoutAbsent(validator.value(root, spec as Field<unknown>, '')) as T;
  issues.push(...validator.issues);
  return new ConfigDocument<T>(file, text, value, issues, { doc, lines });
}

/** Reads `file` and then {@link parseConfigDocument}; a file that cannot be read is a ConfigError. */
export async function readConfigDocument<T>(file: string, spec: Field<T>, options: DocumentOptions = {}): Promise<ConfigDocument<T>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new ConfigError([{ file, line: 0, col: 0, message: `cannot read config: ${reason}` }], ErrorCode.ConfigFile);
  }
  return parseConfigDocument(text, file, spec, options);
}

/** JSON.parse's error, placed (V8 names a position for some errors only) and without quoting the text. */
function jsonIssue(text: string, file: string, err: unknown): ConfigIssue {
  const reason = err instanceof Error ? err.message : String(err);
  const named = /at position (\d+)/.exec(reason);
  const offset = Math.min(named ? Number(named[1]) : jsonErrorOffset(text), text.length);
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  // V8 quotes the text around the error in some messages: the position says it, and quoting a
  // config file could print a secret.
  const detail = reason
    .replace(/ in JSON at position \d+.*$/s, '')
    .replace(/, \.\.\.?".*$/s, '')
    .replace(/ at position \d+.*$/s, '');
  return { file, line, col: offset - start + 1, message: `invalid JSON: ${detail}` };
}

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** The value without the keys of absent optional fields (which the validator sets to undefined). */
function withoutAbsent(v: unknown): unknown {
  if (Array.isArray(v)) {
    for (const item of v) withoutAbsent(item);
  } else if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (o[k] === undefined) delete o[k];
      else withoutAbsent(o[k]);
    }
  }
  return v;
}
