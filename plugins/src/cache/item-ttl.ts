import { f } from '@svc/engine';

/** The per-item `ttl` field of the `cache` processor and output (Benthos' words). */
export const itemTtlSpec = f
  .string()
  .interpolated()
  .optional()
  .advanced()
  .describe(
    'The TTL of each individual item as a duration string (e.g. `60s`, `5m`, `36h`). After this period an item will be eligible for removal during the next compaction. Not all caches support per-key TTLs, those that do will have a configuration field `default_ttl`, and those that do not will fall back to their generally configured TTL setting.',
  );
