import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { ComponentKind } from '../config/component-config.js';
import { configSchema, fieldSchema } from '../config/json-schema.js';
import { indexMarkdown, kindMarkdown, kindPage, type ReferencedComponent } from '../config/markdown-reference.js';
import { rootSpec } from '../config/root-spec.js';
import { pluginPaths, readConfig } from '../config/load.js';
import { COMPONENT_PACKAGES, componentOrigin } from '../plugin/component-packages.js';
import { loadPlugins } from '../plugin/load-plugins.js';
import { absoluteModule } from '../streams/stream-builder.js';
import { languageNames } from '../interp/index.js';
import { registry } from '../plugin/registry.js';
import type { Args } from './args.js';
import { loadBasePlugins } from './setup.js';

/** The registered components grouped by kind, each with the package that brings it. */
function referenced(): Map<ComponentKind, ReferencedComponent[]> {
  const r = registry();
  const byKind = new Map<ComponentKind, ReferencedComponent[]>();
  for (const c of r.all()) {
    let list = byKind.get(c.kind);
    if (!list) byKind.set(c.kind, (list = []));
    list.push({ component: c, pkg: componentOrigin(c.kind, c.name) ?? '@svc/engine', aliasOf: r.aliasTarget(c.kind, c.name) });
  }
  return byKind;
}

/** `--format markdown`: one document on stdout, or with `--out DIR` an index and one page per kind. */
function markdown(out: string | undefined): void {
  const byKind = referenced();
  if (out === undefined) {
    process.stdout.write([...byKind].map(([kind, cs]) => kindMarkdown(kind, cs)).join('\n'));
    return;
  }
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'README.md'), indexMarkdown(byKind));
  for (const [kind, cs] of byKind) writeFileSync(join(out, `${kindPage(kind)}.md`), kindMarkdown(kind, cs));
}

/** A component's plugin module as the user may read it (relative to the working folder), unless it is one of ours. */
function pluginModule(pkg: string): string | undefined {
  if (pkg === '@svc/engine' || COMPONENT_PACKAGES.includes(pkg)) return undefined;
  return isAbsolute(pkg) ? relative(process.cwd(), pkg) : pkg;
}

/**
 * `engine list [-c FILE] [--plugin MODULE] [--format text|json|jsonschema|markdown]`: the registered
 * components, with those of the plugins a config names (`plugins:`) or `--plugin` loads, as Benthos'
 * `list -t` shows a template's components.
 */
export async function list(args: Args): Promise<number> {
  await loadBasePlugins(args);
  if (args.config !== undefined) {
    const base = dirname(resolve(args.config));
    await loadPlugins(pluginPaths(readConfig(args.config)).map((p) => absoluteModule(p, base)));
  }
  const r = registry();
  const format = args.format ?? 'text';
  if (format === 'jsonschema') {
    process.stdout.write(JSON.stringify(configSchema(r, rootSpec), null, 2) + '\n');
    return 0;
  }
  if (format === 'json') {
    const out: object[] = r.all().map((c) => ({
      kind: c.kind,
      name: c.name,
      summary: c.spec.summary,
      package: componentOrigin(c.kind, c.name) ?? '@svc/engine',
      config: fieldSchema(c.spec.config),
    }));
    // The mapping language's names, as `benthos list bloblang-functions bloblang-methods` lists them.
    const names = languageNames();
    for (const name of names.functions) out.push({ kind: 'bloblang-function', name, package: '@svc/engine' });
    for (const name of names.methods) out.push({ kind: 'bloblang-method', name, package: '@svc/engine' });
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
    return 0;
  }
  if (format === 'markdown') {
    markdown(args.out);
    return 0;
  }
  if (format !== 'text') {
    process.stderr.write(`engine list: unknown format "${format}": use text, json, jsonschema or markdown\n`);
    return 1;
  }
  let kind = '';
  for (const c of r.all()) {
    if (c.kind !== kind) {
      kind = c.kind;
      const heading = kind === 'rate_limit' ? 'Rate limits' : kind === 'metrics' ? 'Metrics' : kind[0]!.toUpperCase() + kind.slice(1) + 's';
      process.stdout.write(`\n${heading}:\n`);
    }
    const module = pluginModule(componentOrigin(c.kind, c.name) ?? '@svc/engine');
    process.stdout.write(`  - ${c.name.padEnd(22)} ${c.spec.summary}${module === undefined ? '' : ` (plugin ${module})`}\n`);
  }
  return 0;
}
