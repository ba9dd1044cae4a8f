/**
 * The `governance_hub` output: sends each API message to the hub on the sync stream of the
 * `governance_sync` input's connection, and resolves once the hub acked it (the message is then
 * acked back to the input). A message of a sync run that is no longer current (the connection
 * was lost and the sync is run again once the agent is back) is dropped, not resent.
 */
import { NotConnectedError, type Batch, type Output } from '@svc/engine';
import { wireApi, type ProvidedApi } from '../wire/api-record.js';
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
        const provider = { name: String(msg.getMeta('provider_name') ?? ''), type: String(msg.getMeta('provider_type') ?? '') };
        return hub.sendApi(wireApi(syncId, provider, msg.json() as Partial<ProvidedApi>));
      }),
    );
  }
}
