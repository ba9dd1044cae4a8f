/**
 * The messages between the primary of a stream run as several processes and its children, over
 * `node:cluster`'s IPC channel (one ordered pipe per child). A child asks (`ask`, answered by one
 * `reply` with the same id); the primary tells every child of a change (`event`), and a child
 * acknowledges each event once it applied it (`ack`), so that the primary can answer the child that
 * made the change only once every process has it. Asks and replies made in one turn of the event
 * loop travel as one message (a request's rate limit is an ask: one IPC write per turn, not per
 * request). Every message carries `svc: 'link'` so that other
 * users of the channel (the supervisor's ready message, prom-client's) pass by.
 */

import type { BreakerEvent, RateBreakerConfig } from '../kit/rate-breaker.js';

/** What the primary's breaker said: whether the request may go (for `ready`), and what happened to it since it was last asked. */
export interface BreakerAnswer {
  ready: boolean;
  events: BreakerEvent[];
}

/** An entry of a replicated map as it travels: key, value, expiry (ms since the epoch; 0 never). */
export type MapEntry = [key: string, value: unknown, expiresAt: number];

/** The primary's answer to one ask. */
export interface Reply {
  id: number;
  value?: unknown;
  error?: string;
}

/** What a child asks the primary. */
export type Ask =
  /** `units` (else, when they do not fit, `cost`) taken from `key`'s window in the primary's window table `table`. */
  | { op: 'take'; table: string; maxKeys: number; key?: string; capacity: number; perMs: number; cost: number; units: number }
  /**
   * Sets (value) or deletes (value null) `key` of map `map` in every process; answers whether it
   * was there. With `ifAbsent`, a key that is there is left as it is (nothing is sent).
   */
  | { op: 'map-write'; map: string; key: string; value: unknown; expiresAt: number; ifAbsent?: boolean }
  /** Every live entry of map `map`. */
  | { op: 'map-snapshot'; map: string }
  /** The next turn (0, 1, 2, ...) of counter `counter`, one sequence for every process (a load balancer's). */
  | { op: 'turn'; counter: string }
  /** Asks breaker `name` (made with `conf` when new or changed) whether a request may go (`ready`), or counts a result. */
  | { op: 'breaker'; name: string; conf: RateBreakerConfig; act: 'ready' | 'fail' | 'success' }
  /** The value of `key` in the primary's store `store` (null: none, or expired). */
  | { op: 'store-get'; store: string; key: string }
  /** Keeps `value` under `key` in store `store` (at most `maxBytes` of values) until `expiresAt` (ms since the epoch). */
  | { op: 'store-set'; store: string; maxBytes: number; key: string; value: string; expiresAt: number }
  /** Drops every key of store `store` that starts with `prefix`; answers how many went. */
  | { op: 'store-delete-prefix'; store: string; prefix: string }
  /** Hands `payload` to the `topic` handlers of every other child; answers once each ran them. */
  | { op: 'broadcast'; topic: string; payload: unknown }
  /** The metrics of every child, aggregated (Prometheus text). */
  | { op: 'metrics' };

export type LinkMessage =
  /** The asks a child made in one turn of its event loop, sent together (one write, one parse). */
  | { svc: 'link'; t: 'asks'; asks: Array<{ id: number; ask: Ask }> }
  /** The answers the primary had for one child in one turn of its event loop. */
  | { svc: 'link'; t: 'replies'; replies: Reply[] }
  | { svc: 'link'; t: 'event'; eid: number; topic: string; payload: unknown }
  /** What the handlers of the event returned (one entry per handler), e.g. a child's metrics. */
  | { svc: 'link'; t: 'ack'; eid: number; values: unknown[] }
  /** A child's link is listening: it gets events from now on (and loads what it needs). */
  | { svc: 'link'; t: 'hello' };

/** The event every child's metrics exporter answers with its registries' JSON. */
export const METRICS_TOPIC = 'svc:metrics';

/** The topic a replicated map's writes travel under. */
export function mapTopic(map: string): string {
  return `map:${map}`;
}

export function isLinkMessage(m: unknown): m is LinkMessage {
  return m !== null && typeof m === 'object' && (m as { svc?: unknown }).svc === 'link';
}
