/**
 * The start-up half of fail closed: the gateway's stages as the stream's config lays them out,
 * in the order they run, and whether that chain gives an API definition every stage it needs in
 * Tyk's order (API-level limit, auth, key-level limit and quota, rewrite). `engine lint` and
 * `engine -c` refuse a chain that does not (see `chain-check.ts`); the `api_gateway` input refuses
 * a definition loaded later (reload, management API) that needs a stage the chain lacks.
 *
 * A stage nested in another processor (a `switch` case, a `gateway` slot) counts where it stands:
 * whether it runs for a given request is the data path's to check (`stages.ts`).
 */
import type { ComponentConfig, StreamShape } from '@svc/engine';
import type { ApiSpec } from '../apis/api-spec.js';
import { STAGE_FIX, STAGE_NAME, STAGE_ORDER, stagesNeeded, type Stage } from '../kernel/stages.js';

/** One stage of the chain: which, and where it is configured. */
export interface ChainStage {
  stage: Stage;
  path: string;
  /** For a `gateway_rate_limit`: the scope as configured (`{}` is key). */
  scope?: 'api' | 'key';
}

/** The `gateway` processor's slots, in the order they run between its stages. */
export const GATEWAY_SLOTS = ['after_api_limit', 'after_auth', 'after_key_limit', 'after_rewrite'] as const;
export type GatewaySlot = (typeof GATEWAY_SLOTS)[number];

/** The slot that runs right after each stage of the `gateway` processor (none after the transform). */
const SLOT_AFTER: Record<Stage, GatewaySlot | undefined> = {
  api_limit: 'after_api_limit',
  auth: 'after_auth',
  key_limit: 'after_key_limit',
  transform: undefined,
  rewrite: 'after_rewrite',
};

function isComponent(v: unknown): v is ComponentConfig {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Partial<ComponentConfig>;
  return typeof c.type === 'string' && typeof c.path === 'string' && Array.isArray(c.processors) && 'config' in c;
}

/** Components nested anywhere in a component's own config (broker children, switch cases), in order. */
function nested(value: unknown, out: ComponentConfig[] = []): ComponentConfig[] {
  if (isComponent(value)) out.push(value);
  else if (Array.isArray(value)) for (const v of value) nested(v, out);
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) nested(v, out);
  return out;
}

/** The stages of one processor (and of what it holds), in order. */
function processorStages(c: ComponentConfig, out: ChainStage[]): void {
  switch (c.type) {
    case 'gateway_auth':
      out.push({ stage: 'auth', path: c.path });
      return;
    case 'gateway_rate_limit': {
      const scope = (c.config as { scope?: 'api' | 'key' } | undefined)?.scope ?? 'key';
      out.push({ stage: scope === 'api' ? 'api_limit' : 'key_limit', path: c.path, scope });
      return;
    }
    case 'gateway_url_rewrite':
      out.push({ stage: 'rewrite', path: c.path });
      return;
    case 'gateway_transform':
      out.push({ stage: 'transform', path: c.path });
      return;
    case 'gateway': {
      const conf = (c.config ?? {}) as Partial<Record<GatewaySlot, ComponentConfig[]>>;
      for (const stage of STAGE_ORDER) {
        out.push({ stage, path: c.path, ...(stage === 'api_limit' ? { scope: 'api' as const } : stage === 'key_limit' ? { scope: 'key' as const } : {}) });
        const slot = SLOT_AFTER[stage];
        for (const p of slot === undefined ? [] : (conf[slot] ?? [])) processorStages(p, out);
      }
      return;
    }
    default:
      for (const n of nested(c.config)) processorStages(n, out);
  }
}

/** An input's or output's own processors and those of the components it holds. */
function componentStages(c: ComponentConfig, out: ChainStage[], kind: 'input' | 'output'): void {
  // An output's processors run before it (and before its children); an input's after.
  if (kind === 'output') for (const p of c.processors) processorStages(p, out);
  for (const n of nested(c.config)) componentStages(n, out, kind);
  if (kind === 'input') for (const p of c.processors) processorStages(p, out);
}

/** Every gateway stage of a stream, in the order a request meets them. */
export function chainStages(stream: StreamShape): ChainStage[] {
  const out: ChainStage[] = [];
  componentStages(stream.input, out, 'input');
  for (const p of stream.processors) processorStages(p, out);
  componentStages(stream.output, out, 'output');
  return out;
}

/** A definition the chain cannot serve: what is wrong and where (a config path). */
export interface ChainProblem {
  path: string;
  message: string;
}

function describe(api: ApiSpec): string {
  return `API ${JSON.stringify(api.id)}${api.file ? ` (${api.file})` : ''}`;
}

/**
 * Whether `chain` gives `api` every stage it needs, each after the ones before it in Tyk's
 * order; the first problem (naming the API, the field that needs the stage and the fix), or
 * undefined.
 */
export function chainProblem(api: ApiSpec, chain: readonly ChainStage[]): ChainProblem | undefined {
  let after = -1;
  let previous: ChainStage | undefined;
  for (const need of stagesNeeded(api)) {
    const at = chain.findIndex((s, i) => i > after && s.stage === need.stage);
    if (at >= 0) {
      after = at;
      previous = chain[at];
      continue;
    }
    const fix = `${STAGE_FIX[need.stage]}, or use \`- gateway: {}\` (Tyk's whole chain in its order)`;
    const early = chain.find((s) => s.stage === need.stage);
    if (early !== undefined && previous !== undefined) {
      return {
        path: early.path,
        message: `${describe(api)}: ${need.field} needs ${STAGE_NAME[need.stage]} after ${STAGE_NAME[previous.stage]}, but ${early.path} runs it before ${STAGE_NAME[previous.stage]} (${previous.path}): ${fix}`,
      };
    }
    const other =
      need.stage === 'api_limit' ? chain.find((s) => s.scope === 'key') : need.stage === 'key_limit' ? chain.find((s) => s.scope === 'api') : undefined;
    const hint = other ? ` (${other.path} is gateway_rate_limit with scope: ${other.scope}${other.scope === 'key' ? ', the default' : ''})` : '';
    return {
      path: 'root.pipeline.processors',
      message: `${describe(api)}: ${need.field} needs ${STAGE_NAME[need.stage]}, which the pipeline does not have${hint}: ${fix}`,
    };
  }
  return undefined;
}
