import type { ComponentKind } from './component-config.js';
import type { Field } from './spec.js';
import type { Registry } from '../plugin/registry.js';

type Schema = Record<string, unknown>;

/** The JSON Schema of a field (components refer to `#/definitions/<kind>`). */
export function fieldSchema(field: Field<unknown>): Schema {
  const s: Schema = {};
  if (field.description) s.description = field.description;
  if (field.hasDefault && field.kind !== 'component') s.default = field.defaultValue;
  switch (field.kind) {
    case 'string':
      s.type = 'string';
      if (field.options) s.enum = [...field.options];
      break;
    case 'int':
      s.type = 'integer';
      break;
    case 'float':
      s.type = 'number';
      break;
    case 'bool':
      s.type = 'boolean';
      break;
    case 'array':
      s.type = 'array';
      s.items = fieldSchema(field.item!);
      break;
    case 'map':
      s.type = 'object';
      s.additionalProperties = fieldSchema(field.item!);
      break;
    case 'object': {
      s.type = 'object';
      s.additionalProperties = false;
      const props: Schema = {};
      const required: string[] = [];
      for (const [k, v] of Object.entries(field.fields!)) {
        props[k] = fieldSchema(v);
        if (v.required && v.kind !== 'object') required.push(k);
      }
      s.properties = props;
      if (required.length) s.required = required;
      break;
    }
    case 'component':
      s.$ref = `#/definitions/${field.componentKind}`;
      break;
    case 'any':
      break;
  }
  return s;
}

/** One schema per component kind: an object with `label` (and `processors`) plus exactly one type key. */
function kindSchema(registry: Registry, kind: ComponentKind): Schema {
  const names = registry.names(kind);
  const base: Schema = { label: { type: 'string', pattern: '^[a-z0-9_]*$' } };
  if (kind === 'input' || kind === 'output') base.processors = { type: 'array', items: { $ref: '#/definitions/processor' } };
  return {
    type: 'object',
    oneOf: names.map((n) => {
      const c = registry.get(kind, n)!;
      const props: Schema = { ...base, [n]: { ...fieldSchema(c.spec.config), description: c.spec.summary } };
      return { properties: props, required: [n], additionalProperties: false };
    }),
  };
}

/** The JSON Schema of a whole config, for editors and `engine list --format jsonschema`. */
export function configSchema(registry: Registry, root: Field<unknown>): Schema {
  const kinds: ComponentKind[] = ['input', 'output', 'processor', 'rate_limit', 'cache', 'buffer', 'metrics', 'tracer'];
  const definitions: Schema = {};
  for (const k of kinds) definitions[k] = kindSchema(registry, k);
  return { $schema: 'http://json-schema.org/draft-07/schema#', ...fieldSchema(root), definitions };
}
