/** A provider instance from its type and config (instances[].config of agent-config.yaml). */
import { CloudGwProvider } from '../providers/cloudgw-provider.js';
import type { ApiProvider } from '../providers/provider.js';
import { SvcProvider } from '../providers/svc-provider.js';

export function providerOf(name: string, type: 'svc' | 'cloudgw', config: Record<string, string>): ApiProvider {
  if (type === 'svc') return new SvcProvider(name, { host: config.host ?? '', auth: config.auth ?? '' });
  return new CloudGwProvider(name, {
    accessKeyId: config.accessKeyId ?? '',
    accessKeySecret: config.accessKeySecret ?? '',
    region: config.region ?? '',
    ...(config.sessionToken ? { sessionToken: config.sessionToken } : {}),
  });
}
