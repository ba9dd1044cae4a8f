/** An agent as the REST API shows it: the record the governance spec gives, its status worked out from its heartbeats. */
import { ZERO_TIME, type AgentRow } from './hub-store.js';

export interface AgentRecord {
  id: string;
  name: string;
  last_heartbeat: string;
  status: 'ACTIVE' | 'INACTIVE';
  providers: unknown[] | null;
}

/** RFC 3339 with seconds, as Go prints a time.Time in JSON (no milliseconds when there are none). */
export function rfc3339(d: Date): string {
  return d.toISOString().replace('.000Z', 'Z');
}

/**
 * ACTIVE while heartbeats arrive: the last one is less than `interval × missed` old. Worked out
 * when asked, so every hub replica agrees without a timer.
 */
export function agentRecord(row: AgentRow, intervalMs: number, missed: number, now = Date.now()): AgentRecord {
  const beat = row.last_heartbeat === null ? undefined : new Date(row.last_heartbeat);
  const active = beat !== undefined && now - beat.getTime() <= intervalMs * missed;
  return {
    id: row.id,
    name: row.name,
    last_heartbeat: beat === undefined ? ZERO_TIME : rfc3339(beat),
    status: active ? 'ACTIVE' : 'INACTIVE',
    providers: Array.isArray(row.providers) ? row.providers : null,
  };
}
