/**
 * Checks of a whole stream that no single field's spec can make: a plugin registers one, and
 * `engine lint`, `engine -c` and every stream built through `defineStream` run it on the validated
 * config before anything starts (a gateway checks that its chain of processors gives every API
 * definition it serves the stages that definition needs). A problem names the config path it is
 * about; it becomes a `file:line:col` issue like any lint error.
 */
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import type { ConfigIssue } from '../errors.js';
import { errorMessage } from '../errors.js';
import type { ComponentConfig } from './component-config.js';
import type { ParsedConfig } from './load.js';
import type { RootConfig } from './root-spec.js';

/** The parts of one stream's validated config that components and stream checks read. */
export interface StreamShape {
  /** The config file (or the name the config was given). */
  readonly file: string;
  readonly input: ComponentConfig;
  /** `pipeline.processors`, in order. */
  readonly processors: readonly ComponentConfig[];
  readonly output: ComponentConfig;
  /** `pipeline.threads` as written (-1: one per logical CPU). */
  readonly threads: number;
}

/** A problem a stream check found: the config path it is about (`root.pipeline.processors.1`) and what to do. */
export interface StreamProblem {
  path: string;
  message: string;
}

/** A check of a whole stream; async checks may read the files the config names. */
export type StreamCheck = (stream: StreamShape) => StreamProblem[] | Promise<StreamProblem[]>;

const KEY = Symbol.for('svc.stream-checks');
type WithChecks = typeof globalThis & { [KEY]?: Map<string, StreamCheck> };

function checks(): Map<string, StreamCheck> {
  const g = globalThis as WithChecks;
  return (g[KEY] ??= new Map());
}

/**
 * Registers a check every stream config must pass (`name`: the plugin's, for errors). A second
 * registration of one name replaces the first (a module loaded twice).
 */
export function registerStreamCheck(name: string, check: StreamCheck): void {
  checks().set(name, check);
}

/** The shape of a validated root config. */
export function streamShape(config: RootConfig, file: string): StreamShape {
  return { file, input: config.input, processors: config.pipeline.processors, output: config.output, threads: config.pipeline.threads };
}

/** Runs every registered check on a validated config; a check that throws is an issue too. */
export async function runStreamChecks(config: RootConfig, parsed: ParsedConfig): Promise<ConfigIssue[]> {
  const shape = streamShape(config, parsed.file);
  const issues: ConfigIssue[] = [];
  for (const [name, check] of checks()) {
    let problems: StreamProblem[];
    try {
      problems = await check(shape);
    } catch (err) {
      problems = [{ path: 'root', message: `${name}: the check failed: ${errorMessage(err)}` }];
    }
    for (const p of problems) issues.push({ file: parsed.file, ...positionOf(parsed, p.path), message: p.message });
  }
  return issues;
}

/**
 * Where a config path is written: `root.pipeline.processors.1` is the second item of the
 * pipeline's processors; a segment the document does not have (a component's type, a default)
 * is looked for one level down, then the deepest node found is placed.
 */
function positionOf(parsed: ParsedConfig, path: string): { line: number; col: number } {
  let node = parsed.doc.contents as Node | null;
  let found = node;
  for (const seg of path.split('.').slice(1)) {
    const next = child(node, seg) ?? (isMap(node) && node.items.length === 1 ? child(node.items[0]!.value as Node, seg) : undefined);
    if (next === undefined) break;
    node = found = next;
  }
  const offset = found?.range?.[0] ?? 0;
  const pos = parsed.lines.linePos(offset);
  return { line: Math.max(pos.line, 1), col: Math.max(pos.col, 1) };
}

function child(node: Node | null | undefined, seg: string): Node | undefined {
  if (isSeq(node) && /^\d+$/.test(seg)) return (node.items[Number(seg)] as Node | undefined) ?? undefined;
  if (isMap(node)) {
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === seg);
    return (pair?.value as Node | undefined) ?? undefined;
  }
  return undefined;
}
