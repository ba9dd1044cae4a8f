import type { ComponentConfig } from '../config/component-config.js';
import type { LoggerConfig } from '../observability/logger.js';
import type { ResourceConfigs } from '../runtime/builder.js';

/** What every pipeline worker is started with: enough to build the processor chain once. */
export interface WorkerData {
  /** Plugin module specifiers (built-ins first), loaded before anything is built. */
  plugins: string[];
  processors: ComponentConfig[];
  /** The resources processors may name (caches, rate limits, processors). */
  resources: ResourceConfigs;
  /** The main-thread builder's scope (main-thread components are found by it). */
  scope: string;
  /** Resources shared by several streams (streams mode), mirrored first. */
  parent?: { resources: ResourceConfigs; scope: string };
  /** Shared memory created on the main thread (rate limit counters, ...), by key. */
  shared: Array<[string, SharedArrayBuffer]>;
  logger: Partial<LoggerConfig>;
  /** Whether the main thread keeps metrics and traces: workers then record theirs. */
  telemetry?: { metrics: boolean; tracing: boolean };
}
