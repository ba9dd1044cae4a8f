/**
 * An API provider the agent reads (`instances[]` of agent-config.yaml): it lists its APIs, each normalised
 * to the wire's fields, handing them over one at a time so that a provider with 10,000 APIs is
 * never held twice in memory. Errors never carry a credential.
 */
import type { ProvidedApi } from '../wire/api-record.js';

/** `svc`: an svc gateway; `tyk`: a Tyk Gateway; `cloudgw`: an AWS API Gateway account. */
export type ProviderType = 'svc' | 'tyk' | 'cloudgw';

export interface ApiProvider {
  readonly name: string;
  readonly type: ProviderType;
  /** Lists every API, awaiting `emit` for each (back-pressure); resolves with how many. */
  list(emit: (api: ProvidedApi) => Promise<void>): Promise<number>;
  close?(): void;
}

export class ProviderError extends Error {}
