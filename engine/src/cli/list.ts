import { configSchema, fieldSchema } from '../config/json-schema.js';
import { rootSpec } from '../config/root-spec.js';
import { registry } from '../plugin/registry.js';
import type { Args } from './args.js';
import { loadBasePlugins } from './setup.js';

/** `engine list [--format text|json|jsonschema]`: the registered components. */
export async function list(args: Args): Promise<number> {
  await loadBasePlugins(args);
  const r = registry();
  const format = args.format ?? 'text';
  if (format === 'jsonschema') {
    process.stdout.write(JSON.stringify(configSchema(r, rootSpec), null, 2) + '\n');
    return 0;
  }
  if (format === 'json') {
    const out = r.all().map((c) => ({
      kind: c.kind,
      name: c.name,
      summary: c.spec.summary,
      config: fieldSchema(c.spec.config),
    }));
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
    return 0;
  }
  if (format !== 'text') {
    process.stderr.write(`engine list: unknown format "${format}": use text, json or jsonschema\n`);
    return 1;
  }
  let kind = '';
  for (const c of r.all()) {
    if (c.kind !== kind) {
      kind = c.kind;
      const heading = kind === 'rate_limit' ? 'Rate limits' : kind === 'metrics' ? 'Metrics' : kind[0]!.toUpperCase() + kind.slice(1) + 's';
      process.stdout.write(`\n${heading}:\n`);
    }
    process.stdout.write(`  - ${c.name.padEnd(22)} ${c.spec.summary}\n`);
  }
  return 0;
}
