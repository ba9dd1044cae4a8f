/**
 * An agent as the hub sees it, for tests that drive the hub's side directly: its credentials made
 * over REST, and its sync stream opened over gRPC with them (what the test writes is what an
 * agent would send).
 */
import { AUTHORIZATION, LICENSE, grpc, governanceClient, type HubMessage } from '../wire/governance-wire.js';
import { rest } from './hub-client.js';

/** An agent's sync stream, opened with its token and license. */
export function syncStream(grpcPort: number, token: string, license: string) {
  const Client = governanceClient();
  const client = new Client(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
    Sync(m: grpc.Metadata): grpc.ClientDuplexStream<unknown, HubMessage>;
  };
  const m = new grpc.Metadata();
  m.set(AUTHORIZATION, `Bearer ${token}`);
  m.set(LICENSE, license);
  const call = client.Sync(m);
  const got: HubMessage[] = [];
  // How the hub ended the stream (its status); never waited for longer than 30 s.
  const ended = new Promise<grpc.ServiceError | undefined>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the hub did not end the stream within 30 s')), 30_000);
    timer.unref();
    call.on('error', (e: grpc.ServiceError) => (clearTimeout(timer), resolve(e)));
    call.on('end', () => (clearTimeout(timer), resolve(undefined)));
  });
  ended.catch(() => undefined);
  call.on('data', (h: HubMessage) => got.push(h));
  return { call, got, ended, close: () => (call.cancel(), client.close()) };
}

/** Polls `check` every 50 ms until it holds; throws after `ms` (a guard, not a judgement). */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A new agent's token and license, made by the admin's key. */
export async function agentCredentials(base: string, key: string, name: string): Promise<{ token: string; license: string }> {
  const agent = await rest<{ id: string }>(base, 'POST', '/api/agents/', { key, body: { name } });
  const token = await rest<{ token: string }>(base, 'POST', '/api/auth/token/', { key, body: { agent_id: agent.body.id } });
  const license = await rest<{ license: string }>(base, 'POST', '/api/licenses/', { key, body: { sub: name } });
  return { token: token.body.token, license: license.body.license };
}
