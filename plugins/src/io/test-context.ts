/**
 * Test helpers for the io family: a minimal ComponentContext whose logger records its lines,
 * config defaults applied from a field spec, and lint run on a value (the field checks).
 * Used by the `*.test.ts` files only.
 */
import { registry, type ComponentContext, type Field, type Input, type LogFields, type Logger, type LogLevelName, type Output } from '@svc/engine';

export interface LogLine {
  level: LogLevelName;
  msg: string;
  fields?: LogFields;
}

/** A Logger that keeps its lines in `lines`. */
export class RecordingLogger implements Logger {
  constructor(readonly lines: LogLine[] = []) {}
  private add(level: LogLevelName, msg: string, fields?: LogFields): void {
    this.lines.push({ level, msg, fields });
  }
  fatal(msg: string, fields?: LogFields): void {
    this.add('FATAL', msg, fields);
  }
  error(msg: string, fields?: LogFields): void {
    this.add('ERROR', msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.add('WARN', msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.add('INFO', msg, fields);
  }
  debug(msg: string, fields?: LogFields): void {
    this.add('DEBUG', msg, fields);
  }
  trace(msg: string, fields?: LogFields): void {
    this.add('TRACE', msg, fields);
  }
  enabled(): boolean {
    return true;
  }
  child(): Logger {
    return this;
  }
}

export interface TestContext extends ComponentContext {
  readonly logger: RecordingLogger;
}

const unavailable = (what: string) => (): never => {
  throw new Error(`${what} is not available in the test context`);
};

/** A context for a component under test. */
export function testContext(type = 'test', path = `root.test.${type}`): TestContext {
  return {
    path,
    label: type,
    type,
    logger: new RecordingLogger(),
    resources: { rateLimit: unavailable('rateLimit'), hasRateLimit: () => false },
    isWorker: false,
    sharedBuffer: (_key, bytes) => new SharedArrayBuffer(bytes),
    buildProcessors: unavailable('buildProcessors'),
    buildInput: unavailable('buildInput'),
    buildOutput: unavailable('buildOutput'),
  };
}

/** The value with the field's defaults applied (objects: field by field). */
export function withDefaults<T>(field: Field<T>, value?: unknown): T {
  if (field.kind === 'object' && field.fields) {
    const given = (value ?? {}) as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, child] of Object.entries(field.fields)) out[k] = withDefaults(child, given[k]);
    return out as T;
  }
  if (value === undefined && field.hasDefault) return structuredClone(field.defaultValue) as T;
  return value as T;
}

/** The lint problems of a value (defaults applied), as `path: message` strings. */
export function lint(field: Field<unknown>, value: unknown, path = 'config'): string[] {
  const out: string[] = [];
  if (value === undefined) {
    if (field.required) out.push(`${path}: required`);
    return out;
  }
  if (field.options && !field.options.includes(value as string)) out.push(`${path}: expected one of ${field.options.join(', ')}`);
  if (field.kind === 'object' && field.fields) {
    for (const [k, child] of Object.entries(field.fields)) out.push(...lint(child, (value as Record<string, unknown>)[k], `${path}.${k}`));
  }
  const problem = field.check?.(value);
  if (problem) out.push(`${path}: ${problem}`);
  return out;
}

/** Builds a registered input from a config (defaults applied) through its factory. */
export async function buildInput(name: string, config: unknown, ctx: ComponentContext = testContext(name)): Promise<Input> {
  const reg = registry().get('input', name);
  if (!reg) throw new Error(`input ${name} is not registered`);
  return (await reg.spec.factory(withDefaults(reg.spec.config, config), ctx)) as Input;
}

/** Builds a registered output from a config (defaults applied) through its factory. */
export async function buildOutput(name: string, config: unknown, ctx: ComponentContext = testContext(name)): Promise<Output> {
  const reg = registry().get('output', name);
  if (!reg) throw new Error(`output ${name} is not registered`);
  return (await reg.spec.factory(withDefaults(reg.spec.config, config), ctx)) as Output;
}

/** A deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
