/**
 * The gRPC wire between agents and the hub (proto/governance.proto), loaded at run time with
 * proto-loader (field names as the .proto writes them), and its messages as TypeScript types.
 * Imported only by `engine hub` and `engine agent`: an engine that runs neither never loads gRPC.
 */
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { WireApi } from './api-record.js';

export { grpc };

const PROTO = fileURLToPath(new URL('../../proto/governance.proto', import.meta.url));

export interface Provider {
  name: string;
  type: string;
  status: string;
  error: string;
}
export interface Heartbeat {
  agent_version: string;
  providers: Provider[];
  sent_at_unix_ms: string | number;
}
export interface HeartbeatAck {
  received_at_unix_ms: string | number;
}
export interface ProviderResult {
  provider_name: string;
  api_count: number;
  error: string;
}
export interface AgentMessage {
  register?: { agent_version: string; providers: Provider[] };
  api?: WireApi;
  complete?: { sync_id: string; api_count: number; providers: ProviderResult[]; trigger?: string };
  failed?: { sync_id: string; error: string; trigger?: string };
}
export interface HubMessage {
  registered?: { agent_id: string; agent_name: string; heartbeat_interval_ms?: string | number };
  sync_request?: { sync_id: string };
  api_ack?: { sync_id: string; provider_name: string; api_id: string };
  sync_ack?: { sync_id: string; stored: number };
}

/** Metadata keys: the agent's token (as a bearer credential) and its license. */
export const AUTHORIZATION = 'authorization';
export const LICENSE = 'x-svc-license';

let loaded: grpc.ServiceDefinition | undefined;

export function governanceService(): grpc.ServiceDefinition {
  if (loaded === undefined) {
    const def = protoLoader.loadSync(PROTO, { keepCase: true, longs: String, defaults: true, oneofs: true });
    const pkg = grpc.loadPackageDefinition(def) as unknown as { svc: { governance: { v1: { Governance: { service: grpc.ServiceDefinition } } } } };
    loaded = pkg.svc.governance.v1.Governance.service;
  }
  return loaded;
}

/** A client constructor for the service. */
export function governanceClient(): grpc.ServiceClientConstructor {
  return grpc.makeGenericClientConstructor(governanceService(), 'Governance');
}

/** True for an address on this machine: the only place plaintext gRPC is allowed. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}
