/**
 * The files and processes the governance tests set up: a hub's config, an agent's
 * `agent-config.yaml` (the shape docs/spec/governance.md gives), and a running svc gateway with two APIs and a policy
 * for the `svc` provider to read.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { engine, type Proc } from './processes.js';

/** hub.yaml in `dir`: loopback ports, the embedded database in `dir`, heartbeats every second. */
export function writeHubYaml(dir: string, httpPort: number, grpcPort: number): string {
  const file = join(dir, 'hub.yaml');
  writeFileSync(
    file,
    `http: { address: 127.0.0.1:${httpPort} }
grpc: { address: 127.0.0.1:${grpcPort} }
storage: { embedded: { dir: ./hub-data } }
agents: { heartbeat_interval: 1s, inactive_after_missed: 3 }
`,
  );
  return file;
}

/** An agent-config.yaml in `dir`; `instance` is the YAML of one `instances` entry, indented by 2. */
export function writeAgentYaml(
  dir: string,
  name: string,
  a: { grpcPort: number; token: string; license: string; probePort: number; instance: string },
): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `licenseKey: ${a.license}
governanceDashboard:
  server:
    url: 127.0.0.1:${a.grpcPort}
  auth:
    token: ${a.token}
instances:
${a.instance}
logLevel: info
healthProbe:
  server:
    port: ${a.probePort}
`,
  );
  return file;
}

/** The `instances` entry of an svc provider reading the gateway at `port` (secret `gw-secret`). */
export const svcInstance = (name: string, port: number) =>
  `  - name: ${name}\n    type: svc\n    config:\n      host: http://127.0.0.1:${port}\n      auth: gw-secret`;

/** A running svc gateway on `port` with the APIs `payments` and `catalog` and the policy `gold`. */
export async function startGateway(dir: string, port: number): Promise<Proc> {
  const gw = join(dir, 'gw');
  mkdirSync(join(gw, 'apps'), { recursive: true });
  mkdirSync(join(gw, 'policies'), { recursive: true });
  writeFileSync(
    join(gw, 'svc.conf'),
    JSON.stringify({
      listen_address: '127.0.0.1',
      listen_port: port,
      secret: 'gw-secret',
      app_path: './apps',
      policies: { policy_source: 'file', policy_path: './policies' },
    }),
  );
  for (const id of ['payments', 'catalog'])
    writeFileSync(
      join(gw, 'apps', `${id}.json`),
      JSON.stringify({
        api_id: id,
        name: `${id} API`,
        use_keyless: true,
        proxy: { listen_path: `/${id}/`, target_url: 'http://127.0.0.1:9/' },
        version_data: { not_versioned: true, versions: { Default: { name: 'Default' } } },
      }),
    );
  writeFileSync(join(gw, 'policies', 'gold.json'), JSON.stringify({ id: 'gold', name: 'Gold tier', rate: 100, per: 1, access_rights: {} }));
  writeFileSync(
    join(dir, 'gw.yaml'),
    `http: { enabled: false }\ninput:\n  api_gateway: { conf: ${JSON.stringify(join(gw, 'svc.conf'))} }\noutput:\n  gateway_proxy: {}\n`,
  );
  const gateway = engine(['-c', join(dir, 'gw.yaml')]);
  await gateway.waitFor(/Gateway listening/);
  return gateway;
}
