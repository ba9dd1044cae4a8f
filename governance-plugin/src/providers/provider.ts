/**
 * An API provider the agent reads (`instances[]` of agent-config.yaml): it lists its APIs, each normalised
 * to the wire's fields, handing them over one at a time so that a provider with 10,000 APIs is
 * never held twice in memory. Errors never carry a credential.
 */
export interface ProvidedApi {
  api_id: string;
  name: string;
  kind: string;
  version: string;
  base_path: string;
  /** The provider's own description of the API, as JSON text. */
  definition_json: string;
  updated_at_unix_ms: number;
}

export interface ApiProvider {
  readonly name: string;
  readonly type: 'svc' | 'cloudgw';
  /** Lists every API, awaiting `emit` for each (back-pressure); resolves with how many. */
  list(emit: (api: ProvidedApi) => Promise<void>): Promise<number>;
  close?(): void;
}

export class ProviderError extends Error {}
