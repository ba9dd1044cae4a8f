/**
 * The check `engine lint` and `engine -c` run on a stream with an `api_gateway` input: every API
 * definition of its svc.conf's `app_path` must get from the stream's chain each stage it needs,
 * in Tyk's order (`chain.ts`); a problem names the API, the field and the fix. Definitions
 * are read without resolving external references (no store is called at lint): one that cannot
 * be read so is left to the input, which checks it again when it loads it. A svc.conf that is
 * not there (a config linted from another folder) is left to the input too.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { registerStreamCheck, type ComponentConfig, type StreamProblem, type StreamShape } from '@svc/engine';
import type { ApiGatewayConfig } from './api-gateway-spec.js';

function gatewayInputs(c: unknown, out: ComponentConfig[] = []): ComponentConfig[] {
  if (Array.isArray(c)) for (const v of c) gatewayInputs(v, out);
  else if (typeof c === 'object' && c !== null) {
    const comp = c as Partial<ComponentConfig>;
    if (comp.type === 'api_gateway' && typeof comp.path === 'string') out.push(comp as ComponentConfig);
    else for (const v of Object.values(c)) gatewayInputs(v, out);
  }
  return out;
}

/** `app_path` of a svc.conf, against its folder; undefined when the file cannot be read as JSON. */
async function appPath(conf: string): Promise<string | undefined> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(conf, 'utf8'));
  } catch {
    return undefined;
  }
  const v = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)['app_path'] : undefined;
  const path = typeof v === 'string' && v !== '' ? v : 'apps/';
  return isAbsolute(path) ? path : resolve(dirname(conf), path);
}

async function checkGateways(stream: StreamShape): Promise<StreamProblem[]> {
  const inputs = gatewayInputs(stream.input);
  if (inputs.length === 0) return [];
  const [{ chainStages, chainProblem }, { loadApis }, { NO_REFERENCES }] = await Promise.all([
    import('./chain.js'),
    import('../apis/load-apis.js'),
    import('../refs/references.js'),
  ]);
  const chain = chainStages(stream);
  const problems: StreamProblem[] = [];
  for (const input of inputs) {
    const apps = await appPath(resolve((input.config as ApiGatewayConfig).conf));
    if (apps === undefined) continue;
    const { apis } = await loadApis(apps, NO_REFERENCES);
    for (const api of apis) {
      const p = chainProblem(api, chain);
      if (p) problems.push(p);
    }
  }
  return problems;
}

registerStreamCheck('gateway', checkGateways);
