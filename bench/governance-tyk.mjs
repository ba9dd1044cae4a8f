// Governance against a real Tyk Gateway: the sync of 10,000 APIs from Tyk through an agent to the
// hub, against the same read straight from Tyk's API and written with one statement into the
// hub's store (bench/governance.mjs, tykSyncRow, says how).
import { tykSyncRow } from './governance.mjs';

export async function run({ quick }) {
  return tykSyncRow(quick ? 1000 : 10_000);
}
