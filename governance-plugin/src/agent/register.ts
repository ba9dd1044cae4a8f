/** Registers `governance_sync` and `governance_hub`; their implementations (gRPC, the AWS SDK) load when built. */
import { f, parseDuration, registerInput, registerOutput } from '@svc/engine';

const instance = f.object({
  name: f.string().describe('A name for the provider instance (unique in this agent).'),
  type: f
    .enum(['svc', 'tyk', 'cloudgw'] as const)
    .describe('`svc`: an svc gateway’s management API; `tyk`: a Tyk Gateway’s management API; `cloudgw`: an AWS API Gateway account.'),
  config: f
    .map(f.string())
    .describe('svc, tyk: `host` (the gateway’s URL) and `auth` (its secret). cloudgw: `accessKeyId`, `accessKeySecret`, `region`, `sessionToken` (optional).'),
});

const syncSpec = f.object({
  hub_address: f.string().describe('The hub’s gRPC address, `host:port` (TLS unless a loopback address).'),
  token: f.string().secret().describe('The agent token (POST /api/auth/token/ on the hub).'),
  license_key: f.string().secret().describe('The governance license (`engine hub license`).'),
  heartbeat_interval: f.duration().default('5s').describe('How often a heartbeat goes to the hub.'),
  sync_interval: f
    .duration()
    .default('0s')
    .describe('Also sync on this schedule (once registered, then every interval), not only when the hub asks; `0s`: only when asked.'),
  connection: f.string().default('default').describe('The name `governance_hub` outputs find this connection by.'),
  agent_version: f.string().default('svc-agent').advanced().describe('Reported to the hub.'),
  instances: f.array(instance).default([]).describe('The providers to list on each sync request.'),
});

registerInput('governance_sync', {
  summary: 'Holds a governance agent’s connection to the hub; on each sync request emits one message per API of every provider.',
  config: syncSpec,
  examples: [
    `input:
  governance_sync:
    hub_address: 127.0.0.1:50051
    token: \${AGENT_TOKEN}
    license_key: \${SVC_AGENT_LICENSEKEY}
    instances:
      - { name: gateway, type: svc, config: { host: "http://127.0.0.1:8080", auth: \${GW_SECRET} } }
output:
  governance_hub: {}`,
  ],
  factory: async (conf, ctx) => {
    const [{ GovernanceSyncInput }, { providerOf }] = await Promise.all([import('./governance-sync-input.js'), import('./providers.js')]);
    return new GovernanceSyncInput({
      connection: conf.connection,
      hubAddress: conf.hub_address,
      token: conf.token,
      license: conf.license_key,
      heartbeatMs: parseDuration(conf.heartbeat_interval),
      syncIntervalMs: parseDuration(conf.sync_interval),
      agentVersion: conf.agent_version,
      providers: conf.instances.map((i) => providerOf(i.name, i.type, i.config)),
      log: ctx.logger,
    });
  },
});

registerOutput('governance_hub', {
  summary: 'Streams API messages of a governance_sync input back to the hub; a message is acked once the hub has it.',
  config: f.object({ connection: f.string().default('default').describe('The `connection` of the governance_sync input.') }),
  examples: [
    `# An agent whose sync input and hub output share the connection "gw".
input:
  governance_sync:
    hub_address: 127.0.0.1:50051
    token: \${AGENT_TOKEN}
    license_key: \${SVC_AGENT_LICENSEKEY}
    connection: gw
    instances:
      - { name: gateway, type: svc, config: { host: "http://127.0.0.1:8080", auth: \${GW_SECRET} } }
output:
  governance_hub:
    connection: gw`,
  ],
  factory: async (conf) => {
    const { GovernanceHubOutput } = await import('./governance-hub-output.js');
    return new GovernanceHubOutput(conf.connection);
  },
});
