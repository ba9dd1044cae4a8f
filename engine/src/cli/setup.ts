import { dirname, resolve } from 'node:path';
import { applySets, pluginPaths, readConfig, validateConfig, type ParsedConfig } from '../config/load.js';
import type { RootConfig } from '../config/root-spec.js';
import { runStreamChecks } from '../config/stream-checks.js';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { BUILTIN_PLUGINS, loadPlugins } from '../plugin/load-plugins.js';
import { registry } from '../plugin/registry.js';
import { registerCoreComponents } from '../runtime/core-components.js';
import { absoluteModule } from '../streams/stream-builder.js';
import type { Args } from './args.js';

/** Loads the built-ins and the --plugin modules (no config needed): for lint and list. */
export async function loadBasePlugins(args: Args): Promise<string[]> {
  registerCoreComponents();
  const mods = [...BUILTIN_PLUGINS, ...args.plugins.map((p) => absoluteModule(p, process.cwd()))];
  await loadPlugins(mods);
  return mods;
}

export interface LoadedConfig {
  config: RootConfig;
  issues: ConfigIssue[];
  plugins: string[];
  parsed: ParsedConfig;
}

/** Reads a config file with its plugins, -s overrides and -r resources, and validates it. */
export async function loadStreamConfig(file: string, args: Args, base: string[]): Promise<LoadedConfig> {
  const parsed = readConfig(file);
  const own = pluginPaths(parsed).map((p) => absoluteModule(p, dirname(resolve(file))));
  await loadPlugins(own);
  applySets(parsed, args.sets);
  const resources = args.resources.map((r) => readConfig(r));
  const { config, issues } = validateConfig(parsed, registry(), resources);
  // Whole-stream checks read what the config names (files): only a config that is valid itself.
  if (issues.length === 0) issues.push(...(await runStreamChecks(config, parsed)));
  return { config, issues, plugins: [...base, ...own], parsed };
}

export function printIssues(err: ConfigError | ConfigIssue[]): void {
  const issues = Array.isArray(err) ? err : err.issues;
  for (const i of issues) process.stderr.write(`${i.file}:${i.line}:${i.col} ${i.message}\n`);
}
