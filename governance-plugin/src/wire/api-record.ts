/**
 * The hub's API record, declared once for every place it passes: a provider lists it
 * ({@link ProvidedApi}, the JSON the agent's sync stream carries), the agent sends it to the hub
 * ({@link WireApi}, proto `Api`), the hub stores it ({@link StoredApi}) and reads it back
 * ({@link ApiRow}). Each is the same five descriptive fields ({@link ApiDescription}) plus what
 * that place adds; the constructors below are the only places one record becomes the next.
 */

/** What every place says of an API. */
export interface ApiDescription {
  api_id: string;
  name: string;
  /** `classic`, `oas`, `policy` (svc); `rest`, `http` (cloudgw). */
  kind: string;
  version: string;
  base_path: string;
}

/** An API as a provider lists it. */
export interface ProvidedApi extends ApiDescription {
  /** The provider's own description of the API, as JSON text. */
  definition_json: string;
  updated_at_unix_ms: number;
}

/** An API on the wire to the hub (proto/governance.proto `Api`): the provided API, its sync and provider. */
export interface WireApi extends Omit<ProvidedApi, 'updated_at_unix_ms'> {
  sync_id: string;
  provider_name: string;
  provider_type: string;
  /** proto-loader reads an int64 as a string or a number. */
  updated_at_unix_ms: string | number;
}

/** An API as the hub stores it for one agent (a row of `apis` without its agent and sync time). */
export interface StoredApi extends ApiDescription {
  provider_name: string;
  provider_type: string;
  definition: string;
  updated_at: Date | null;
}

/** A row of the hub's `apis` table. */
export interface ApiRow extends StoredApi {
  /** The hub's id of the API (from its agent, provider and API id): GET /api/apis/{id}/. */
  id: string;
  agent_id: string;
  synced_at: Date;
}

/** A provided API: `definition` is kept as JSON text; a version or base path it lacks is ''. */
export function providedApi(
  api: Omit<ApiDescription, 'version' | 'base_path'> & Partial<ApiDescription> & { definition: unknown; updatedAtMs?: number },
): ProvidedApi {
  return {
    api_id: api.api_id,
    name: api.name,
    kind: api.kind,
    version: api.version ?? '',
    base_path: api.base_path ?? '',
    definition_json: JSON.stringify(api.definition),
    updated_at_unix_ms: api.updatedAtMs ?? 0,
  };
}

/**
 * The wire record of one message of the agent's sync stream: `api` is the message's JSON (a
 * provided API, as the user's mapping left it: every field is read as text, a missing one as '').
 */
export function wireApi(syncId: string, provider: { name: string; type: string }, api: Partial<Record<keyof ProvidedApi, unknown>>): WireApi {
  return {
    sync_id: syncId,
    provider_name: provider.name,
    provider_type: provider.type,
    api_id: String(api.api_id ?? ''),
    name: String(api.name ?? ''),
    kind: String(api.kind ?? ''),
    version: String(api.version ?? ''),
    base_path: String(api.base_path ?? ''),
    definition_json: String(api.definition_json ?? ''),
    updated_at_unix_ms: Number(api.updated_at_unix_ms ?? 0),
  };
}

/** What the hub stores of a wire record (an update time of 0 is none). */
export function storedApi(a: WireApi): StoredApi {
  return {
    provider_name: a.provider_name,
    provider_type: a.provider_type,
    api_id: a.api_id,
    name: a.name,
    kind: a.kind,
    version: a.version,
    base_path: a.base_path,
    definition: a.definition_json,
    updated_at: Number(a.updated_at_unix_ms) > 0 ? new Date(Number(a.updated_at_unix_ms)) : null,
  };
}
