/**
 * What a stage family starts once per gateway, beside its state: the `api_gateway` input starts
 * every service registered here when it loads svc.conf (main thread) and closes them once it has
 * drained. Rate limiting registers its own (the algorithm check, the distributed limiter's
 * heartbeat), so the front door runs it without importing rate limiting.
 */
import type { ComponentContext, Logger } from '@svc/engine';
import type { GatewayConfig } from '../conf/gateway-config.js';

export interface GatewayService {
  close(): Promise<void>;
}

/** Starts a service for a gateway's config; rejects (the gateway does not start) on a config it cannot run. */
type StartService = (config: GatewayConfig, ctx: Pick<ComponentContext, 'sharedBuffer'>, log: Logger) => Promise<GatewayService>;

/** By family name, so a family registers once however often its module is read. */
const services = new Map<string, StartService>();

export function registerGatewayService(family: string, start: StartService): void {
  services.set(family, start);
}

/** Every registered service started for `config`, in registration order; on a refusal those started are closed again. */
export async function startGatewayServices(config: GatewayConfig, ctx: Pick<ComponentContext, 'sharedBuffer'>, log: Logger): Promise<GatewayService[]> {
  const started: GatewayService[] = [];
  try {
    for (const start of services.values()) started.push(await start(config, ctx, log));
  } catch (err) {
    await closeGatewayServices(started);
    throw err;
  }
  return started;
}

/** Closes `started`, the last started first. */
export async function closeGatewayServices(started: GatewayService[]): Promise<void> {
  for (const s of [...started].reverse()) await s.close();
}
