import { availableParallelism } from 'node:os';
import type { RootConfig } from '../config/root-spec.js';

/**
 * How many processes a stream asks to run in: its input's `processes` field (`http_server`,
 * `api_gateway` declare one; 0 means one per core), else 1. Only `engine -c` runs processes.
 */
export function processCount(config: RootConfig): number {
  const asked = (config.input.config as { processes?: unknown } | undefined)?.processes;
  if (typeof asked !== 'number' || !Number.isInteger(asked) || asked < 0) return 1;
  return asked === 0 ? availableParallelism() : asked;
}
