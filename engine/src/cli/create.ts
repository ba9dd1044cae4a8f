/**
 * `engine create [INPUTS/PROCESSORS/OUTPUTS]` (Benthos' `create`): prints a config with the named
 * components, every field at its default and the required ones marked `# No default (required)`,
 * ready to edit. `engine create stdin/mapping,log/stdout`; `--small` (`-s` is `--set` here: use
 * the long form) leaves out the advanced fields and the sections beside input, pipeline and output.
 */
import { Document, isNode, type Node } from 'yaml';
import type { ComponentKind } from '../config/component-config.js';
import { rootSpec } from '../config/root-spec.js';
import type { Field } from '../config/spec.js';
import { ErrorCode, SvcError } from '../errors.js';
import { registry } from '../plugin/registry.js';
import type { Args } from './args.js';
import { loadBasePlugins } from './setup.js';

type Path = (string | number)[];

/** The skeleton of a field: its default, or a placeholder noted in `required`. */
function skeleton(field: Field<unknown>, small: boolean, path: Path, required: Path[]): unknown {
  if (field.kind === 'object' && field.fields) {
    const out: Record<string, unknown> = {};
    for (const [k, f] of Object.entries(field.fields)) {
      if (f.isSvcOnly || (small && f.isAdvanced)) continue;
      if (f.isOptional && !f.hasDefault) continue;
      const v = skeleton(f, small, [...path, k], required);
      if (v !== undefined) out[k] = v;
    }
    return out;
  }
  if (field.hasDefault) return structuredClone(field.defaultValue);
  if (field.isOptional) return undefined;
  required.push(path);
  switch (field.kind) {
    case 'int':
    case 'float':
      return 0;
    case 'bool':
      return false;
    case 'array':
      return [];
    case 'map':
    case 'any':
    case 'component':
      return {};
    default:
      return '';
  }
}

/** `{name: skeleton}` of a registered component, or an error naming the kinds' components. */
function component(kind: ComponentKind, name: string, small: boolean, path: Path, required: Path[]): Record<string, unknown> {
  const c = registry().get(kind, name);
  if (!c) throw new SvcError(ErrorCode.Usage, `unrecognised ${kind} type: ${name} (engine list shows the ${kind}s)`);
  return { [name]: skeleton(c.spec.config as Field<unknown>, small, [...path, name], required) };
}

/** The config text for an expression such as `stdin/mapping,log/stdout`. */
export function createConfig(expression: string | undefined, small: boolean): string {
  const parts = (expression ?? '').split('/');
  if (parts.length > 3) throw new SvcError(ErrorCode.Usage, `invalid expression "${expression}": write inputs/processors/outputs, e.g. stdin/mapping/stdout`);
  const names = (i: number) => (parts[i] ?? '').split(',').filter((s) => s !== '');
  const [inputs, processors, outputs] = [names(0), names(1), names(2)];
  const required: Path[] = [];
  const root = skeleton(rootSpec as Field<unknown>, small, [], []) as Record<string, unknown>;
  const one = (kind: 'input' | 'output', list: string[], fallback: string): Record<string, unknown> => {
    if (list.length <= 1) return component(kind, list[0] ?? fallback, small, [kind], required);
    return { broker: { [`${kind}s`]: list.map((n, i) => component(kind, n, small, [kind, 'broker', `${kind}s`, i], required)) } };
  };
  const config: Record<string, unknown> = small ? {} : { ...root };
  config.input = one('input', inputs, 'stdin');
  config.pipeline = {
    ...(root.pipeline as Record<string, unknown>),
    processors: processors.map((n, i) => component('processor', n, small, ['pipeline', 'processors', i], required)),
  };
  config.output = one('output', outputs, 'stdout');
  if (small) for (const k of Object.keys(config)) if (!['input', 'pipeline', 'output'].includes(k)) delete config[k];
  const doc = new Document(config);
  for (const p of required) {
    const node = doc.getIn(p, true) as unknown;
    if (isNode(node)) (node as Node).comment = ' No default (required)';
  }
  return doc.toString();
}

export async function create(args: Args): Promise<number> {
  await loadBasePlugins(args);
  if (args.positional.length > 1) throw new SvcError(ErrorCode.Usage, 'engine create takes one expression, e.g. engine create stdin/mapping,log/stdout');
  process.stdout.write(createConfig(args.positional[0], args.small));
  return 0;
}
