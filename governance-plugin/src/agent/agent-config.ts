/**
 * agent-config.yaml as the governance spec (docs/spec/governance.md) has it, unchanged: `licenseKey` (or SVC_AGENT_LICENSEKEY),
 * `governanceDashboard.server.url` (`host:port`, no scheme), `governanceDashboard.auth.token`,
 * `instances[]` (`name`, `type: svc | tyk | cloudgw`, `config`), `logLevel`, `healthProbe.server.port`,
 * and one svc extension: `syncInterval` (a duration such as `5m`: the agent also syncs on that
 * schedule, not only when the hub asks);
 * `${VAR}` / `${VAR:default}` references to the environment, as in the engine's configs.
 * Read by the engine's config-document loader: every problem is a ConfigError line
 * `file:line:col what`; no secret is ever quoted.
 */
import { f, parseDuration, type Infer } from '@svc/engine';
import { parseConfigDocument, readConfigDocument, type ConfigDocument } from '@svc/engine/kit';
import type { CloudGwConfig } from '../providers/cloudgw-provider.js';
import type { GatewayProviderConfig } from '../providers/gateway-provider.js';

export type Instance = { name: string; type: 'svc' | 'tyk'; config: GatewayProviderConfig } | { name: string; type: 'cloudgw'; config: CloudGwConfig };

export interface AgentConfig {
  licenseKey: string;
  hubAddress: string;
  token: string;
  instances: Instance[];
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  probePort: number;
  /** `syncInterval` in ms (an svc extension); 0: sync only when the hub asks. */
  syncIntervalMs: number;
}

/** The shortest syncInterval: a sync lists every provider, so a tighter loop only loads them. */
const MIN_SYNC_INTERVAL_MS = 1000;

const text = () => f.string().default('');

/** The fields of docs/spec/governance.md's agent-config.yaml; the rules between them (required, formats, one type's config) are checked after. */
const spec = f.object({
  licenseKey: text(),
  governanceDashboard: f.object({ server: f.object({ url: text() }), auth: f.object({ token: text() }) }),
  instances: f
    .array(
      f.object({
        name: text(),
        type: text(),
        // svc, tyk: host, auth; cloudgw: accessKeyId, accessKeySecret, region, sessionToken.
        config: f.object({ host: text(), auth: text(), accessKeyId: text(), accessKeySecret: text(), region: text(), sessionToken: text() }).optional(),
      }),
    )
    .optional(),
  logLevel: text(),
  // An svc extension (not in the governance spec): sync on this schedule too.
  syncInterval: text(),
  healthProbe: f.object({ server: f.object({ port: f.int().default(5959) }) }),
});

/**
 * Reads agent-config.yaml's text; every problem at once, each at its file:line:col, as a
 * ConfigError. Fields the agent does not read are left alone, as before.
 */
export function parseAgentConfig(text: string, file: string, env: NodeJS.ProcessEnv = process.env): AgentConfig {
  return agentConfigOf(parseConfigDocument(text, file, spec, options(env)), env);
}

export async function loadAgentConfig(file: string): Promise<AgentConfig> {
  return agentConfigOf(await readConfigDocument(file, spec, options(process.env)), process.env);
}

function options(env: NodeJS.ProcessEnv) {
  // ${VAR} and ${VAR:default} as in the engine's configs, so secrets can stay out of the file.
  return { format: 'yaml', env, what: 'an agent config: licenseKey, governanceDashboard, instances', unknownField: () => {} } as const;
}

function agentConfigOf(doc: ConfigDocument<Infer<typeof spec>>, env: NodeJS.ProcessEnv): AgentConfig {
  const c = doc.value;
  if (c === undefined) return doc.result() as never;
  // The rules below run beside the spec's own issues (every problem at once); a value of the
  // wrong type is undefined here, and said already.
  const required = (value: string | undefined, path: (string | number)[], name: string): string => {
    if (value === '') doc.problem(path, `${name} is required`);
    return value ?? '';
  };
  const licenseKey = c.licenseKey || env.SVC_AGENT_LICENSEKEY || '';
  if (licenseKey === '') doc.problem([], 'licenseKey is required (or set SVC_AGENT_LICENSEKEY)');
  const url = required(c.governanceDashboard?.server?.url, ['governanceDashboard', 'server', 'url'], 'governanceDashboard.server.url');
  if (url !== '' && (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || !/^[^/\s]+:\d+$/.test(url)))
    doc.problem(
      ['governanceDashboard', 'server', 'url'],
      `governanceDashboard.server.url must be host:port with no protocol, such as grpc-hub.example.com:443 (got "${url}")`,
    );
  const token = required(c.governanceDashboard?.auth?.token, ['governanceDashboard', 'auth', 'token'], 'governanceDashboard.auth.token');

  const instances: Instance[] = [];
  const list = c.instances ?? [];
  const typed = !doc.issues.some((i) => i.message.includes(' at instances,'));
  if (list.length === 0 && typed) doc.problem(['instances'], 'instances: expected a list of at least one provider');
  const names = new Set<string>();
  list.forEach((item, i) => {
    if (item === undefined) return;
    const path = `instances[${i}]`;
    const at = (...rest: string[]) => ['instances', i, ...rest];
    const name = required(item.name, at('name'), `${path}.name`);
    const type = required(item.type, at('type'), `${path}.type`);
    if (names.has(name)) doc.problem(at('name'), `${path}.name "${name}" is used twice`);
    names.add(name);
    const conf = item.config;
    if (conf === undefined) return void doc.problem(at('config'), `${path}.config: expected a mapping`);
    const field = (key: keyof typeof conf) => required(conf[key], at('config', key), `${path}.config.${key}`);
    if (type === 'svc' || type === 'tyk') {
      const host = field('host');
      if (host !== '' && !/^https?:\/\/[^\s]+$/.test(host))
        doc.problem(at('config', 'host'), `${path}.config.host must be the gateway's URL, such as http://gateway:8080`);
      instances.push({ name, type, config: { host, auth: field('auth') } });
    } else if (type === 'cloudgw') {
      const config: CloudGwConfig = { accessKeyId: field('accessKeyId'), accessKeySecret: field('accessKeySecret'), region: field('region') };
      if (conf.sessionToken) config.sessionToken = conf.sessionToken;
      instances.push({ name, type, config });
    } else if (type !== '') doc.problem(at('type'), `${path}.type must be svc, tyk or cloudgw, not "${type}"`);
  });
  const level = (c.logLevel || 'info').toLowerCase();
  if (!['debug', 'info', 'warn', 'error'].includes(level)) doc.problem(['logLevel'], `logLevel must be debug, info, warn or error, not "${level}"`);
  const port = c.healthProbe?.server?.port;
  if (port !== undefined && (port < 0 || port > 65535))
    doc.problem(['healthProbe', 'server', 'port'], 'healthProbe.server.port must be a port number (0-65535)');
  let syncIntervalMs = 0;
  if (c.syncInterval) {
    try {
      syncIntervalMs = parseDuration(c.syncInterval);
    } catch {
      syncIntervalMs = -1;
    }
    if (syncIntervalMs < MIN_SYNC_INTERVAL_MS)
      doc.problem(['syncInterval'], `syncInterval must be a duration of at least 1s, such as 5m or 1h30m (got "${c.syncInterval}")`);
  }
  doc.result();
  return { licenseKey, hubAddress: url, token, instances, logLevel: level.toUpperCase() as AgentConfig['logLevel'], probePort: port, syncIntervalMs };
}
