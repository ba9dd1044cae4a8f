import { f } from '../config/spec.js';

/** Benthos' words for an output's `max_in_flight` (`service.NewOutputMaxInFlightField`). */
const MAX_IN_FLIGHT_DESCRIPTION = 'The maximum number of messages to have in flight at a given time. Increase this to improve throughput.';

/**
 * The `max_in_flight` field of an output: at least 1. Benthos' default differs by component (64
 * for most, 1024 for `nats_kv`), so each component names its own.
 */
export function maxInFlightField(defaultValue: number, description = MAX_IN_FLIGHT_DESCRIPTION) {
  return f
    .int()
    .default(defaultValue)
    .validate((n) => (n >= 1 ? undefined : 'max_in_flight must be at least 1'))
    .describe(description);
}
