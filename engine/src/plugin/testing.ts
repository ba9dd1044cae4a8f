/**
 * A small kit for unit-testing components outside a stream: a logger that records its lines, a
 * config value with a spec's defaults applied, the spec's own checks run on a value, and a
 * component built through its registered factory. The built-in families' tests use it; so can
 * a plugin's.
 *
 *   const ctx = testContext({ type: 'shout' });
 *   const p = await buildComponent<Processor>('processor', 'shout', { suffix: '!' }, ctx);
 */
import type { ComponentKind } from '../config/component-config.js';
import type { Field } from '../config/spec.js';
import type { LogFields, Logger, LogLevelName } from '../observability/logger.js';
import { registry } from './registry.js';
import type { ComponentContext, RateLimit, ResourceKind, ResourceTypes, Resources, ServiceRoutes } from './types.js';

export interface LogLine {
  level: LogLevelName;
  msg: string;
  fields?: LogFields;
}

const SEVERITY: Record<string, number> = { OFF: 0, NONE: 0, FATAL: 1, ERROR: 2, WARN: 3, INFO: 4, DEBUG: 5, TRACE: 6, ALL: 7 };

/** A Logger that keeps its lines (with its children's fields merged in), up to `level`. */
export class RecordingLogger implements Logger {
  constructor(
    readonly lines: LogLine[] = [],
    private readonly base: LogFields = {},
    readonly level: LogLevelName = 'ALL',
  ) {}
  private add(level: LogLevelName, msg: string, fields?: LogFields): void {
    if (!this.enabled(level)) return;
    const all = fields === undefined && Object.keys(this.base).length === 0 ? undefined : { ...this.base, ...fields };
    this.lines.push(all === undefined ? { level, msg } : { level, msg, fields: all });
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
  enabled(level: LogLevelName): boolean {
    return SEVERITY[level]! <= SEVERITY[this.level]!;
  }
  child(fields: LogFields): Logger {
    return new RecordingLogger(this.lines, { ...this.base, ...fields }, this.level);
  }
}

export interface TestContext extends ComponentContext {
  readonly logger: RecordingLogger;
}

export interface TestContextOptions {
  type?: string;
  path?: string;
  logger?: RecordingLogger;
  rateLimits?: Record<string, RateLimit>;
  /** Resources by kind and label (rate limits may come in `rateLimits` too). */
  resources?: { [K in ResourceKind]?: Record<string, ResourceTypes[K]> };
  service?: ServiceRoutes;
  buildProcessors?: ComponentContext['buildProcessors'];
  buildInput?: ComponentContext['buildInput'];
  buildOutput?: ComponentContext['buildOutput'];
}

const unavailable = (what: string) => (): never => {
  throw new Error(`${what} is not available in the test context`);
};

/** The resources a test context gives: those of the options, by kind and label. */
function testResources(opts: TestContextOptions): Resources {
  const table = (kind: ResourceKind): Record<string, unknown> | undefined =>
    kind === 'rate_limit' ? { ...opts.rateLimits, ...opts.resources?.rate_limit } : opts.resources?.[kind];
  const r: Resources = {
    get: <K extends ResourceKind>(kind: K, label: string) => {
      const v = table(kind)?.[label];
      if (v === undefined) throw new Error(`${kind} resource '${label}' is not defined in the test context`);
      return v as ResourceTypes[K];
    },
    has: (kind, label) => table(kind)?.[label] !== undefined,
    rateLimit: (label) => r.get('rate_limit', label),
    hasRateLimit: (label) => r.has('rate_limit', label),
  };
  return r;
}

/** A ComponentContext for a component under test; what it is not given throws when used. */
export function testContext(opts: TestContextOptions = {}): TestContext {
  const type = opts.type ?? 'test';
  return {
    path: opts.path ?? `root.test.${type}`,
    label: type,
    type,
    logger: opts.logger ?? new RecordingLogger(),
    resources: testResources(opts),
    service: opts.service,
    isWorker: false,
    sharedBuffer: (_key, bytes) => new SharedArrayBuffer(bytes),
    buildProcessors: opts.buildProcessors ?? unavailable('buildProcessors'),
    buildInput: opts.buildInput ?? unavailable('buildInput'),
    buildOutput: opts.buildOutput ?? unavailable('buildOutput'),
  };
}

/** The value with the field's defaults applied (objects field by field), as the validator fills it. */
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

/** The problems the spec's own checks find in a value, as `path: message` strings. */
export function lintValue(field: Field<unknown>, value: unknown, path = 'config'): string[] {
  const out: string[] = [];
  // An absent object is its fields' defaults, as the config validator fills it.
  if (value === undefined && field.kind === 'object' && field.fields) value = {};
  if (value === undefined) return field.required ? [`${path}: required`] : out;
  if (field.options && !field.options.includes(value as string)) out.push(`${path}: expected one of ${field.options.join(', ')}`);
  if (field.kind === 'object' && field.fields) {
    for (const [k, child] of Object.entries(field.fields)) out.push(...lintValue(child, (value as Record<string, unknown>)[k], `${path}.${k}`));
  }
  if (field.kind === 'array' && field.item && Array.isArray(value)) value.forEach((v, i) => out.push(...lintValue(field.item!, v, `${path}.${i}`)));
  const problem = field.check?.(value);
  if (problem) out.push(`${path}: ${problem}`);
  return out;
}

/** Builds a registered component from a config (defaults applied) through its factory. */
export async function buildComponent<T>(kind: ComponentKind, name: string, config: unknown, ctx: ComponentContext = testContext({ type: name })): Promise<T> {
  const reg = registry().get(kind, name);
  if (!reg) throw new Error(`${kind} ${name} is not registered`);
  return (await reg.spec.factory(withDefaults(reg.spec.config, config), ctx)) as T;
}
