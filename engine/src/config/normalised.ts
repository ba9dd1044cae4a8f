import type { ComponentConfig, ComponentKind } from './component-config.js';
import type { Field } from './spec.js';
import type { Registry } from '../plugin/registry.js';
import { redactUrl } from './redact.js';

/** What a whole secret field shows in `engine echo` (Benthos' text). */
const SCRUBBED = '!!!SECRET_SCRUBBED!!!';

/**
 * Turns a validated config back into its YAML shape (`{label, <type>: config, processors}`),
 * defaults filled in, secret fields scrubbed and URL passwords redacted: what `engine echo` prints.
 */
export function toYamlShape(value: unknown, field: Field<unknown>, registry: Registry): unknown {
  if (value === undefined) return undefined;
  if (field.isSecret && typeof value === 'string' && value !== '') return SCRUBBED;
  if (field.isUrl && typeof value === 'string') return redactUrl(value);
  if (field.isUrl && Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? redactUrl(v) : v));
  switch (field.kind) {
    case 'component':
      return component(value as ComponentConfig, field.componentKind!, registry);
    case 'array':
      return (value as unknown[]).map((v) => toYamlShape(v, field.item!, registry));
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = toYamlShape(v, field.item!, registry);
      return out;
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, f] of Object.entries(field.fields!)) {
        const v = toYamlShape((value as Record<string, unknown>)[k], f, registry);
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
    default:
      return value;
  }
}

function component(c: ComponentConfig, kind: ComponentKind, registry: Registry): unknown {
  const reg = registry.get(kind, c.type);
  const out: Record<string, unknown> = {};
  if (c.label) out.label = c.label;
  out[c.type] = reg ? toYamlShape(c.config, reg.spec.config, registry) : c.config;
  if (c.processors.length) out.processors = c.processors.map((p) => component(p, 'processor', registry));
  if (c.mapping) out.mapping = c.mapping;
  return out;
}
