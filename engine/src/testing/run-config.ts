import { fileURLToPath } from 'node:url';
import { parseConfig, validateConfig } from '../config/load.js';
import type { RootConfig } from '../config/root-spec.js';
import { ConfigError } from '../errors.js';
import { silentLogger } from '../observability/logger.js';
import { registry } from '../plugin/registry.js';
import { registerCoreComponents } from '../runtime/core-components.js';
import { Stream } from '../runtime/stream.js';
import './test-plugin.js';

/** The test plugin module, as workers load it. */
export const TEST_PLUGIN = fileURLToPath(new URL('./test-plugin.js', import.meta.url));

/** Validates YAML text into a config; throws a ConfigError with every issue. */
export function configOf(yaml: string): RootConfig {
  registerCoreComponents();
  const parsed = parseConfig(yaml, 'test.yaml');
  const { config, issues } = validateConfig(parsed, registry());
  if (issues.length) throw new ConfigError(issues);
  return config;
}

/** Builds a stream from YAML text (http disabled), with the test components available. */
export function streamOf(yaml: string): Stream {
  return new Stream({ config: configOf(yaml), registry: registry(), logger: silentLogger, plugins: [TEST_PLUGIN] });
}
