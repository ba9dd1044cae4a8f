/**
 * The public way to build and run a stream in a program: Benthos' StreamBuilder for TypeScript.
 *
 *   const def = await defineStream({ yaml: 'input: { generate: { count: 3, mapping: root = "hi" } }\noutput: { stdout: {} }' });
 *   const stream = await buildStream(def);
 *   stream.start();
 *   await stream.wait();              // or: await stream.stop(5000) — drains, at least once
 *
 * A definition is validated before anything is built: a config with lint errors is a
 * ConfigError carrying every `file:line:col` issue, and nothing starts.
 */
import { dirname, resolve } from 'node:path';
import { stringify } from 'yaml';
import { applySets, parseConfig, pluginPaths, readConfig, validateConfig, type ParsedConfig } from '../config/load.js';
import type { RootConfig } from '../config/root-spec.js';
import { runStreamChecks } from '../config/stream-checks.js';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { createLogger, type Logger, type LoggerConfig } from '../observability/logger.js';
import type { Observability } from '../observability/observability.js';
import { BUILTIN_PLUGINS, loadPlugins } from '../plugin/load-plugins.js';
import { registry } from '../plugin/registry.js';
import type { ServiceRoutes } from '../plugin/types.js';
import { registerCoreComponents } from '../runtime/core-components.js';
import { Stream, type SharedResources } from '../runtime/stream.js';
import type { StatusBoard } from '../runtime/status.js';

/** Where a stream's config comes from: YAML text, a file, or a plain object (as YAML would parse). */
export type StreamSource = { yaml: string; file?: string } | { file: string } | { config: Record<string, unknown>; file?: string };

export interface DefineOptions {
  /** `-s path=value` overrides, applied before validation. */
  sets?: string[];
  /** Resource files (`-r`): their `rate_limit_resources` join the stream's. */
  resources?: string[];
  /** Plugin modules to load first (absolute paths or package names), besides the built-ins. */
  plugins?: string[];
  /**
   * Benthos' `--chilled`: fields the spec does not name are lint warnings (in `lints`), not
   * errors. Every other problem (a wrong type, a missing required field) still refuses the config.
   */
  chilled?: boolean;
}

/** A validated stream config and the plugin modules its worker threads must load. */
export interface StreamDefinition {
  config: RootConfig;
  /** Plugin modules, built-ins first, as absolute paths or package names. */
  plugins: string[];
  /** The file name errors refer to. */
  file: string;
  /** With `chilled`: the lint problems tolerated (to be logged as warnings). */
  lints?: ConfigIssue[];
}

/** A problem `--chilled` tolerates: a field the spec does not name (it is ignored). */
function tolerable(i: ConfigIssue): boolean {
  return /^field \S+ not expected at /.test(i.message);
}

/** Plugin modules as absolute paths (or package names), so that workers load the same ones. */
export function absoluteModule(mod: string, base: string): string {
  return mod.startsWith('.') ? resolve(base, mod) : mod;
}

/** The parsed config, and the folder its relative plugin paths are resolved against. */
function parse(source: StreamSource): { parsed: ParsedConfig; dir: string } {
  if ('yaml' in source) return { parsed: parseConfig(source.yaml, source.file ?? 'stream.yaml'), dir: process.cwd() };
  if ('config' in source) return { parsed: parseConfig(stringify(source.config), source.file ?? 'stream.yaml'), dir: process.cwd() };
  return { parsed: readConfig(source.file), dir: dirname(resolve(source.file)) };
}

/**
 * Loads the built-ins and the plugins a config names, applies overrides and validates.
 * Throws a ConfigError with every issue when the config has lint errors.
 */
export async function defineStream(source: StreamSource, opts: DefineOptions = {}): Promise<StreamDefinition> {
  registerCoreComponents();
  const base = [...BUILTIN_PLUGINS, ...(opts.plugins ?? [])];
  await loadPlugins(base);
  const { parsed, dir } = parse(source);
  const own = pluginPaths(parsed).map((p) => absoluteModule(p, dir));
  await loadPlugins(own);
  applySets(parsed, opts.sets ?? []);
  const resources = (opts.resources ?? []).map((r) => readConfig(r));
  const { config, issues } = validateConfig(parsed, registry(), resources);
  const lints = opts.chilled ? issues.filter(tolerable) : [];
  const errors = opts.chilled ? issues.filter((i) => !tolerable(i)) : issues;
  if (errors.length) throw new ConfigError(errors);
  const problems = await runStreamChecks(config, parsed);
  if (problems.length) throw new ConfigError(problems);
  return { config, plugins: [...base, ...own], file: parsed.file, ...(lints.length ? { lints } : {}) };
}

export interface BuildOptions {
  /** The logger; by default one made from the config's `logger` section. */
  logger?: Logger;
  /** The service-wide HTTP server that `http_server` inputs (empty `address`) mount on. */
  service?: ServiceRoutes;
  /** Connection states for `/ready`. */
  status?: StatusBoard;
  /** Metrics and tracing shared with other streams; by default the stream builds its own. */
  observability?: Observability;
  /** Resources shared with other streams (streams mode's `-r` files). */
  sharedResources?: SharedResources;
}

/** The logger a config's `logger` section describes. */
export function loggerOf(config: RootConfig): Logger {
  return createLogger(config.logger as Partial<LoggerConfig>);
}

/**
 * Builds every component of a defined stream (nothing runs yet). Throws, having closed what it
 * built, when a component cannot be built.
 */
export async function buildStream(def: StreamDefinition, opts: BuildOptions = {}): Promise<Stream> {
  const stream = new Stream({
    config: def.config,
    registry: registry(),
    logger: opts.logger ?? loggerOf(def.config),
    plugins: def.plugins,
    service: opts.service,
    status: opts.status,
    observability: opts.observability,
    ...(opts.sharedResources ? { sharedResources: opts.sharedResources } : {}),
  });
  await stream.build();
  return stream;
}
