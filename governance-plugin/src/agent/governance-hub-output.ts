/**
 * The `governance_hub` output: sends each API message to the hub on the sync stream of the
 * `governance_sync` input's connection, and resolves once the hub acked it (the message is then
 * acked back to the input). A message of a sync run that is no longer current (the connection
 * was lost and the sync is run again once the agent is back) is dropped, not resent.
 */
import { NotConnectedError, type Batch, type Output } from '@svc/engine';
import type { ProvidedApi } from '../providers/provider.js';
import { connectionNamed } from './connections.js';

export class GovernanceHubOutput implements Output {
  constructor(private readonly connection: string) {}

  async write(batch: Batch): Promise<void> {
    const hub = connectionNamed(this.connection);
    if (hub === undefined || !hub.up)
      throw new NotConnectedError(`no connection to the hub named "${this.connection}" is up (a governance_sync input holds it)`);
    await Promise.all(
      batch.map((msg) => {
        const syncId = String(msg.getMeta('sync_id') ?? '');
        if (syncId === '' || syncId !== hub.currentSync || Number(msg.getMeta('sync_run')) !== hub.syncRun) return undefined;
        const api = msg.json() as ProvidedApi;
        return hub.sendApi({
          sync_id: syncId,
          provider_name: String(msg.getMeta('provider_name') ?? ''),
          provider_type: String(msg.getMeta('provider_type') ?? ''),
          api_id: String(api.api_id ?? ''),
          name: String(api.name ?? ''),
          kind: String(api.kind ?? ''),
          version: String(api.version ?? ''),
          base_path: String(api.base_path ?? ''),
          definition_json: String(api.definition_json ?? ''),
          updated_at_unix_ms: Number(api.updated_at_unix_ms ?? 0),
        });
      }),
    );
  }
}
