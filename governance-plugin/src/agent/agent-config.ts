/**
 * agent-config.yaml as the governance spec (docs/spec/governance.md) has it, unchanged: `licenseKey` (or SVC_AGENT_LICENSEKEY),
 * `governanceDashboard.server.url` (`host:port`, no scheme), `governanceDashboard.auth.token`,
 * `instances[]` (`name`, `type: svc | cloudgw`, `config`), `logLevel`, `healthProbe.server.port`;
 * `${VAR}` / `${VAR:default}` references to the environment, as in the engine's configs.
 * Every problem is reported as `file:line:col: what`; no secret is ever quoted.
 */
import { readFile } from 'node:fs/promises';
import { substituteEnv } from '@svc/engine';
import { LineCounter, isMap, isSeq, parseDocument, type Node } from 'yaml';
import type { CloudGwConfig } from '../providers/cloudgw-provider.js';
import type { SvcProviderConfig } from '../providers/svc-provider.js';

export type Instance = { name: string; type: 'svc'; config: SvcProviderConfig } | { name: string; type: 'cloudgw'; config: CloudGwConfig };

export interface AgentConfig {
  licenseKey: string;
  hubAddress: string;
  token: string;
  instances: Instance[];
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  probePort: number;
}

export class AgentConfigError extends Error {}

export function parseAgentConfig(text: string, file: string, env: NodeJS.ProcessEnv = process.env): AgentConfig {
  const lines = new LineCounter();
  // ${VAR} and ${VAR:default} as in the engine's configs, so secrets can stay out of the file.
  const substituted = substituteEnv(text, env);
  if (substituted.problems.length > 0) throw new AgentConfigError(substituted.problems.map((p) => `${file}:${p.line}:${p.col}: ${p.message}`).join('\n'));
  const doc = parseDocument(substituted.text, { lineCounter: lines });
  const at = (node: Node | null | undefined): string => {
    const p = node?.range ? lines.linePos(node.range[0]) : { line: 1, col: 1 };
    return `${file}:${p.line}:${p.col}`;
  };
  const problems: string[] = [];
  const fail = (node: Node | null | undefined, message: string) => problems.push(`${at(node)}: ${message}`);
  for (const e of doc.errors) {
    const p = lines.linePos(e.pos[0]);
    throw new AgentConfigError(`${file}:${p.line}:${p.col}: ${e.message.split('\n')[0]}`);
  }
  const node = (parent: unknown, key: string): Node | null => (isMap(parent) ? ((parent.get(key, true) as Node | undefined) ?? null) : null);
  const value = (n: Node | null): unknown => (n && 'toJSON' in n ? (n as { toJSON(): unknown }).toJSON() : undefined);
  const str = (parent: unknown, key: string, path: string, required: boolean): string => {
    const n = node(parent, key);
    const v = value(n);
    if (v === undefined || v === null || v === '') {
      if (required) fail(n ?? (parent as Node), `${path} is required`);
      return '';
    }
    if (typeof v !== 'string') {
      fail(n, `${path}: expected a string`);
      return '';
    }
    return v;
  };
  const root = doc.contents;
  if (!isMap(root)) throw new AgentConfigError(`${file}:1:1: expected a mapping with licenseKey, governanceDashboard, instances`);

  const licenseKey = str(root, 'licenseKey', 'licenseKey', false) || env.SVC_AGENT_LICENSEKEY || '';
  if (licenseKey === '') fail(root, 'licenseKey is required (or set SVC_AGENT_LICENSEKEY)');
  const dash = node(root, 'governanceDashboard');
  const url = str(node(dash, 'server'), 'url', 'governanceDashboard.server.url', true);
  if (url !== '' && (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || !/^[^/\s]+:\d+$/.test(url)))
    fail(
      node(node(dash, 'server'), 'url'),
      `governanceDashboard.server.url must be host:port with no protocol, such as grpc-hub.example.com:443 (got "${url}")`,
    );
  const token = str(node(dash, 'auth'), 'token', 'governanceDashboard.auth.token', true);

  const instances: Instance[] = [];
  const list = node(root, 'instances');
  if (!isSeq(list) || list.items.length === 0) fail(list ?? root, 'instances: expected a list of at least one provider');
  else {
    const names = new Set<string>();
    list.items.forEach((item, i) => {
      const path = `instances[${i}]`;
      const name = str(item, 'name', `${path}.name`, true);
      const type = str(item, 'type', `${path}.type`, true);
      if (names.has(name)) fail(node(item, 'name'), `${path}.name "${name}" is used twice`);
      names.add(name);
      const c = node(item, 'config');
      if (!isMap(c)) return void fail(c ?? (item as Node), `${path}.config: expected a mapping`);
      if (type === 'svc') {
        const host = str(c, 'host', `${path}.config.host`, true);
        if (host !== '' && !/^https?:\/\/[^\s]+$/.test(host))
          fail(node(c, 'host'), `${path}.config.host must be the gateway's URL, such as http://gateway:8080`);
        instances.push({ name, type, config: { host, auth: str(c, 'auth', `${path}.config.auth`, true) } });
      } else if (type === 'cloudgw') {
        const config: CloudGwConfig = {
          accessKeyId: str(c, 'accessKeyId', `${path}.config.accessKeyId`, true),
          accessKeySecret: str(c, 'accessKeySecret', `${path}.config.accessKeySecret`, true),
          region: str(c, 'region', `${path}.config.region`, true),
        };
        const session = str(c, 'sessionToken', `${path}.config.sessionToken`, false);
        if (session !== '') config.sessionToken = session;
        instances.push({ name, type, config });
      } else if (type !== '') fail(node(item, 'type'), `${path}.type must be svc or cloudgw, not "${type}"`);
    });
  }
  const level = (str(root, 'logLevel', 'logLevel', false) || 'info').toLowerCase();
  if (!['debug', 'info', 'warn', 'error'].includes(level)) fail(node(root, 'logLevel'), `logLevel must be debug, info, warn or error, not "${level}"`);
  const portNode = node(node(node(root, 'healthProbe'), 'server'), 'port');
  const port = portNode === null ? 5959 : Number(value(portNode));
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(portNode, 'healthProbe.server.port must be a port number (0-65535)');
  if (problems.length > 0) throw new AgentConfigError(problems.join('\n'));
  return { licenseKey, hubAddress: url, token, instances, logLevel: level.toUpperCase() as AgentConfig['logLevel'], probePort: port };
}

export async function loadAgentConfig(file: string): Promise<AgentConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new AgentConfigError(`${file}: cannot read the agent config: ${err instanceof Error ? err.message : String(err)}`);
  }
  return parseAgentConfig(text, file);
}
