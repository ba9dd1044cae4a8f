/**
 * On a pipeline worker, each message of a task knows its origin: its index in the task's batch.
 * Messages made from it share its ctx and so its origin; the main thread re-attaches the
 * origin's main-thread ctx to them, and applies the crossing values the worker set there.
 */
import { contextKey } from '../message/context.js';
import type { Message } from '../message/message.js';

/** Runtime-private, worker-only: the origin index of a message of the current task. */
export const ORIGIN_KEY = contextKey<number>('svc.origin');

/** The origin index of a message on a worker; -1 when a processor made it from nothing. */
export function originOf(m: Message): number {
  if (!m.hasCtx()) return -1;
  return m.ctx.get(ORIGIN_KEY) ?? -1;
}
