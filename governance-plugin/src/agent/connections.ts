/** The hub connections of this process, by name: a `governance_hub` output finds its `governance_sync` input's here. */
import type { HubConnection } from './hub-connection.js';

const connections = new Map<string, HubConnection>();

export function registerConnection(name: string, c: HubConnection): void {
  connections.set(name, c);
}

export function unregisterConnection(name: string, c: HubConnection): void {
  if (connections.get(name) === c) connections.delete(name);
}

export function connectionNamed(name: string): HubConnection | undefined {
  return connections.get(name);
}
