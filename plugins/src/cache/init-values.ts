import { f } from '@svc/engine';

/** Benthos' `init_values` of the in-memory caches: a static lookup table loaded at start. */
export const initValuesSpec = f
  .map(f.string())
  .default({})
  .describe('A table of key/value pairs that should be present in the cache on initialization. This can be used to create static lookup tables.');

export const INIT_VALUES_EXAMPLE = '      init_values:\n        Nickelback: "1995"\n        Spice Girls: "1994"\n';
