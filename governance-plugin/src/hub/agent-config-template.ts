/**
 * The agent-config.yaml the hub's onboarding hands out (POST /api/onboarding/): the new agent's
 * token and license, the hub's gRPC address, one provider instance and a syncInterval, ready to
 * run with `engine agent -c agent-config.yaml`. The provider's secret is never in it: it is read
 * from the environment (`${GATEWAY_SECRET}`, or the AWS variables), so the file can be kept
 * as it is. Every value the caller chose is written as a quoted YAML scalar.
 */
import type { ProviderType } from '../providers/provider.js';

export interface OnboardingProvider {
  type: ProviderType;
  name: string;
  /** svc, tyk: the gateway's URL; cloudgw: the AWS region. */
  address: string;
}

const q = (s: string) => JSON.stringify(s);

/** The environment variables the file reads, by provider type. */
export const SECRET_VARIABLES: Record<ProviderType, string[]> = {
  svc: ['GATEWAY_SECRET'],
  tyk: ['GATEWAY_SECRET'],
  cloudgw: ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'],
};

export function agentConfigYaml(a: {
  agentName: string;
  hubAddress: string;
  token: string;
  license: string;
  provider: OnboardingProvider;
  syncInterval: string;
}): string {
  const p = a.provider;
  const config =
    p.type === 'cloudgw'
      ? [`      accessKeyId: \${AWS_ACCESS_KEY_ID}`, `      accessKeySecret: \${AWS_SECRET_ACCESS_KEY}`, `      region: ${q(p.address)}`]
      : [`      host: ${q(p.address)}`, `      auth: \${GATEWAY_SECRET} # the gateway's secret, from the environment`];
  return [
    `# agent-config.yaml of the governance agent ${q(a.agentName)}; run it with: engine agent -c agent-config.yaml`,
    `# The token and license below were shown once: keep this file as a secret.`,
    `licenseKey: ${a.license}`,
    `governanceDashboard:`,
    `  server:`,
    `    url: ${a.hubAddress}`,
    `  auth:`,
    `    token: ${a.token}`,
    ...(a.syncInterval ? [`syncInterval: ${a.syncInterval} # an svc extension: also sync on this schedule`] : []),
    `instances:`,
    `  - name: ${q(p.name)}`,
    `    type: ${p.type}`,
    `    config:`,
    ...config,
    `logLevel: info`,
    `healthProbe:`,
    `  server:`,
    `    port: 5959`,
    ``,
  ].join('\n');
}
