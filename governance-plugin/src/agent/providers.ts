/** A provider instance from its type and config (instances[].config of agent-config.yaml). */
import { CloudGwProvider } from '../providers/cloudgw-provider.js';
import { GatewayProvider } from '../providers/gateway-provider.js';
import type { ApiProvider, ProviderType } from '../providers/provider.js';

export function providerOf(name: string, type: ProviderType, config: Record<string, string>): ApiProvider {
  if (type === 'svc' || type === 'tyk') return new GatewayProvider(name, type, { host: config.host ?? '', auth: config.auth ?? '' });
  return new CloudGwProvider(name, {
    accessKeyId: config.accessKeyId ?? '',
    accessKeySecret: config.accessKeySecret ?? '',
    region: config.region ?? '',
    ...(config.sessionToken ? { sessionToken: config.sessionToken } : {}),
  });
}
