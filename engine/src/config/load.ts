import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LineCounter, type Document, isMap, isSeq, type Node, parse as parseYaml } from 'yaml';
import { ConfigError, ErrorCode, type ConfigIssue } from '../errors.js';
import type { Registry } from '../plugin/registry.js';
import { resolveAliases } from './aliases.js';
import type { ComponentConfig } from './component-config.js';
import { substituteEnv } from './env.js';
import { duplicateKeys } from './unique-keys.js';
import { parseYamlDocument } from './yaml-document.js';
import { RESOURCE_SECTIONS, resourcesSpec, rootSpec, type RootConfig } from './root-spec.js';
import { Validator } from './validate.js';

/** A config file read, env-substituted and parsed, not yet validated. */
export interface ParsedConfig {
  file: string;
  doc: Document;
  lines: LineCounter;
  issues: ConfigIssue[];
  /** The text is not valid YAML: `issues` holds the first syntax error, and nothing is validated. */
  syntaxError?: boolean;
}

function position(lines: LineCounter, offset: number): { line: number; col: number } {
  return lines.linePos(offset);
}

/** Parses config text (after env substitution) keeping source positions. */
export function parseConfig(text: string, file: string, env: Record<string, string | undefined> = process.env): ParsedConfig {
  const lines = new LineCounter();
  const issues: ConfigIssue[] = [];
  const sub = substituteEnv(text, env);
  // Env problems are placed in the original text; substitution keeps line numbers (a substituted
  // value never spans lines: see env.ts).
  for (const p of sub.problems) issues.push({ file, line: p.line, col: p.col, message: p.message });
  const doc = parseYamlDocument(sub.text, lines);
  // The first syntax error only, as Benthos: the ones after it follow from it, and checking the
  // fields of a document that did not parse would only add noise.
  const first = doc.errors[0];
  if (first !== undefined) {
    issues.push({ file, ...position(lines, first.pos[0]), message: `YAML syntax error: ${first.message.split('\n')[0]}` });
    return { file, doc, lines, issues, syntaxError: true };
  }
  if (doc.errors.length === 0) {
    for (const d of duplicateKeys(doc.contents as Node | null)) {
      issues.push({ file, ...position(lines, d.offset), message: `YAML syntax error: Map keys must be unique ("${d.key}" is written twice)` });
    }
  }
  if (doc.contents !== null && !isMap(doc.contents) && doc.errors.length === 0) {
    issues.push({ file, line: 1, col: 1, message: 'a config must be a YAML object (input:, pipeline:, output:, ...)' });
  }
  return { file, doc, lines, issues };
}

/** Reads and parses a config file. A missing or unreadable file is a ConfigError. */
export function readConfig(file: string, env?: Record<string, string | undefined>): ParsedConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new ConfigError([{ file, line: 0, col: 0, message: `cannot read config: ${reason}` }], ErrorCode.ConfigFile);
  }
  return parseConfig(text, file, env);
}

/** The plugin modules a config lists, resolved against the config file's folder. */
export function pluginPaths(parsed: ParsedConfig): string[] {
  const node = parsed.doc.get('plugins', true) as Node | undefined;
  if (!node || !isSeq(node)) return [];
  return node.items.map((item) => {
    const p = String((item as { value?: unknown }).value ?? item);
    return p.startsWith('.') || p.startsWith('/') ? resolve(dirname(parsed.file), p) : p;
  });
}

/**
 * Applies `-s path=value` overrides: `path` is dot-separated (array indexes as numbers) and
 * `value` is parsed as YAML (`5` is a number, `true` a boolean, `foo` a string).
 */
export function applySets(parsed: ParsedConfig, sets: string[]): void {
  for (const s of sets) {
    const eq = s.indexOf('=');
    if (eq <= 0) {
      parsed.issues.push({ file: '-s', line: 0, col: 0, message: `invalid --set "${s}": expected path=value, e.g. input.generate.count=10` });
      continue;
    }
    const path = s
      .slice(0, eq)
      .split('.')
      .map((seg) => (/^\d+$/.test(seg) ? Number(seg) : seg));
    let value: unknown;
    try {
      value = parseYaml(s.slice(eq + 1));
    } catch {
      value = s.slice(eq + 1);
    }
    if (!parsed.doc.contents) parsed.doc.contents = parsed.doc.createNode({}) as never;
    // As a node: a plain value set where the file has no key would not be a YAML scalar to the
    // validator ("expected an integer"), as Benthos' --set, which sets YAML.
    parsed.doc.setIn(path, parsed.doc.createNode(value));
  }
}

/** Validates a parsed config (and resource files) against the registered specs. */
export function validateConfig(parsed: ParsedConfig, registry: Registry, resourceFiles: ParsedConfig[] = []): { config: RootConfig; issues: ConfigIssue[] } {
  const issues = [...parsed.issues];
  if (parsed.syntaxError) return { config: {} as RootConfig, issues };
  const v = new Validator(registry, parsed.file, parsed.lines, resolveAliases(parsed.doc.contents as Node | null, parsed.file, parsed.lines, issues));
  const config = v.value(parsed.doc.contents as Node | null, rootSpec, 'root') as RootConfig | undefined;
  issues.push(...v.issues);
  // Not a mapping: parsing and the validator said so already; there is nothing more to check.
  if (config === undefined || config === null || typeof config !== 'object' || Array.isArray(config)) return { config: {} as RootConfig, issues };
  const sections = Object.entries(RESOURCE_SECTIONS) as Array<[keyof typeof RESOURCE_SECTIONS, (typeof RESOURCE_SECTIONS)[keyof typeof RESOURCE_SECTIONS]]>;
  for (const [, section] of sections) config[section] = (config[section] ?? []).filter(Boolean);
  checkResources(config, parsed.file, sections, issues);
  for (const r of resourceFiles) {
    issues.push(...r.issues);
    const rv = new Validator(registry, r.file, r.lines, resolveAliases(r.doc.contents as Node | null, r.file, r.lines, issues));
    const res = (rv.value(r.doc.contents as Node | null, resourcesSpec, 'root') ?? {}) as Partial<
      Pick<RootConfig, (typeof RESOURCE_SECTIONS)[keyof typeof RESOURCE_SECTIONS]>
    >;
    issues.push(...rv.issues);
    for (const [kind, section] of sections) {
      const added = (res[section] ?? []).filter(Boolean);
      checkResources({ [section]: added }, r.file, sections, issues);
      // As Benthos: a label a resource file shares with the config (or an earlier file) is an error.
      for (const c of added) {
        if (c.label && config[section].some((o) => o.label === c.label)) {
          issues.push({
            file: r.file,
            line: 0,
            col: 0,
            message: `${kind.replace('_', ' ')} resource label '${c.label}' collides with a previously defined resource`,
          });
        }
      }
      // Paths go on from the config's own, so that each resource keeps a path of its own.
      for (const c of added) rebase(c, c.path, `root.${section}.${config[section].push(c) - 1}`);
    }
  }
  config.pipeline.processors = (config.pipeline?.processors ?? []).filter(Boolean);
  issues.sort((a, b) => (a.file === b.file ? a.line - b.line || a.col - b.col : 0));
  return { config, issues };
}

/** Every resource has a label (Benthos' words); `config` holds the sections of one file. */
function checkResources(
  config: Partial<Record<(typeof RESOURCE_SECTIONS)[keyof typeof RESOURCE_SECTIONS], ComponentConfig[]>>,
  file: string,
  sections: Array<[string, (typeof RESOURCE_SECTIONS)[keyof typeof RESOURCE_SECTIONS]]>,
  issues: ConfigIssue[],
): void {
  for (const [, section] of sections) {
    for (const r of config[section] ?? []) {
      if (!r.label) issues.push({ file, line: 0, col: 0, message: `${r.path}: the label field for resources must be unique and not empty` });
    }
  }
}

/** Moves a component (and every component inside it) from path `from` to `to`. */
function rebase(node: unknown, from: string, to: string): void {
  if (Array.isArray(node)) return node.forEach((n) => rebase(n, from, to));
  if (node === null || typeof node !== 'object') return;
  const c = node as Partial<ComponentConfig>;
  if (typeof c.path === 'string' && typeof c.type === 'string' && (c.path === from || c.path.startsWith(`${from}.`))) c.path = to + c.path.slice(from.length);
  for (const v of Object.values(node)) rebase(v, from, to);
}
