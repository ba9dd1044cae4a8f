/**
 * `engine test PATH...`: runs the unit tests of configs as `benthos test` does. A config's tests
 * are its own `tests:` section, or those of its companion `NAME_benthos_test.yaml` (which wins);
 * each case feeds its input batches through the processors it targets (by default
 * `/pipeline/processors`, with `mocks` replacing some, under its `environment`) and checks every
 * output message against its conditions. The report is Benthos': `Test 'FILE' succeeded|failed`,
 * then each failure under its case's name and line; exit 1 when any failed.
 *
 * Paths: config files (a companion file stands for its config), folders (their .yaml/.yml files)
 * and `DIR/...` (recursively). `-r FILE` adds resources to every config, as for a run.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, normalize } from 'node:path';
import { LineCounter, isSeq, parseDocument, stringify, type Node } from 'yaml';
import type { ComponentConfig } from '../config/component-config.js';
import { parseConfig, validateConfig } from '../config/load.js';
import type { RootConfig } from '../config/root-spec.js';
import { ConfigError, errorMessage } from '../errors.js';
import { Message, type Batch, type MetaValue } from '../message/message.js';
import { silentLogger } from '../observability/logger.js';
import { registry } from '../plugin/registry.js';
import { Builder, newScope } from '../runtime/builder.js';
import { runProcessors } from '../runtime/processor-chain.js';
import { StatusBoard } from '../runtime/status.js';
import type { Args } from './args.js';
import { loadBasePlugins } from './setup.js';
import { conditionsOf } from './test-conditions.js';

const SUFFIX = '_benthos_test';

interface InputSpec {
  content?: string;
  json_content?: unknown;
  file_content?: string;
  metadata?: Record<string, MetaValue>;
}

interface TestCase {
  name: string;
  line: number;
  environment?: Record<string, string>;
  target_processors?: string;
  target_mapping?: string;
  mocks?: Record<string, unknown>;
  input_batch?: InputSpec[];
  input_batches?: InputSpec[][];
  output_batches?: Array<Array<Record<string, unknown>>>;
}

interface Failure {
  name: string;
  line: number;
  reason: string;
}

/** The config of a companion test file, and the test file of a config (Benthos' GetPathPair). */
function pathPair(path: string): { config: string; definition: string } {
  const ext = extname(path);
  const name = basename(path, ext);
  if (name.endsWith(SUFFIX)) return { config: join(dirname(path), name.slice(0, -SUFFIX.length) + ext), definition: normalize(path) };
  return { config: normalize(path), definition: join(dirname(path), name + SUFFIX + ext) };
}

/** The YAML files a path names: itself, a folder's, or (`DIR/...`) a tree's. */
function yamlFiles(path: string): string[] {
  const recursive = path.endsWith('/...') || path === '...';
  const root = recursive ? path.slice(0, -3) || '.' : path;
  if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) return [path];
  const out: string[] = [];
  for (const name of readdirSync(root).sort()) {
    const p = join(root, name);
    if (statSync(p).isDirectory()) {
      if (recursive) out.push(...yamlFiles(`${p}/...`));
    } else if (/\.ya?ml$/.test(name)) out.push(p);
  }
  return out;
}

/** The test cases of a definition file, each with the line it starts on. */
function casesOf(definition: string): TestCase[] {
  const lines = new LineCounter();
  const doc = parseDocument(readFileSync(definition, 'utf8'), { lineCounter: lines });
  if (doc.errors.length) throw new Error(`failed to parse test definition from '${definition}': ${doc.errors[0]!.message.split('\n')[0]}`);
  const node = doc.get('tests', true) as Node | undefined;
  if (!node || !isSeq(node)) return [];
  return node.items.map((item) => {
    const c = (item as Node).toJSON() as TestCase;
    const offset = (item as Node).range?.[0] ?? 0;
    return { ...c, line: lines.linePos(offset).line };
  });
}

/** The targets to test: config path → its cases (configs without tests are left out). */
function targets(paths: string[]): Map<string, { definition: string; cases: TestCase[] }> {
  const out = new Map<string, { definition: string; cases: TestCase[] }>();
  for (const p of paths.flatMap(yamlFiles)) {
    const { config, definition } = pathPair(p);
    if (!existsSync(config)) throw new Error(`unable to access target config file '${config}': no such file or directory`);
    const def = existsSync(definition) ? definition : config;
    const cases = casesOf(def);
    if (cases.length) out.set(config, { definition: def, cases });
  }
  return out;
}

/** The component (or list of them) a JSON pointer names in a normalised config. */
function atPointer(config: RootConfig, pointer: string): unknown {
  let node: unknown = config;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    const c = node as Partial<ComponentConfig>;
    if (typeof c.type === 'string' && typeof c.path === 'string' && !Array.isArray(node)) {
      node = seg === c.type ? c.config : seg === 'processors' ? c.processors : undefined;
    } else node = (node as Record<string, unknown>)[seg];
  }
  return node;
}

const isComponent = (v: unknown): v is ComponentConfig =>
  v !== null && typeof v === 'object' && typeof (v as ComponentConfig).type === 'string' && 'processors' in (v as object);

/** Every processor component of a config, nested ones included (for mocks by label). */
function allComponents(node: unknown, out: ComponentConfig[] = []): ComponentConfig[] {
  if (Array.isArray(node)) for (const n of node) allComponents(n, out);
  else if (node !== null && typeof node === 'object') {
    if (isComponent(node)) out.push(node);
    for (const v of Object.values(node)) allComponents(v, out);
  }
  return out;
}

/** A processor config from a mock's YAML value, validated like any other. */
function processorOf(value: unknown, path: string): ComponentConfig {
  const { config, issues } = validateConfig(parseConfig(stringify({ pipeline: { processors: [value] } }), 'mock.yaml'), registry());
  if (issues.length) throw new ConfigError(issues);
  return { ...config.pipeline.processors[0]!, path };
}

/** The processors a case runs: its target (a pointer or a resource label, else its mapping file), mocks applied. */
function targetOf(config: RootConfig, c: TestCase, dir: string): ComponentConfig[] {
  for (const [key, value] of Object.entries(c.mocks ?? {})) {
    const found = key.startsWith('/') ? [atPointer(config, key)].filter(isComponent) : allComponents(config).filter((p) => p.label === key);
    if (found.length === 0) throw new Error(`mock ${key}: no processor has that label or sits at that path`);
    for (const p of found) Object.assign(p, processorOf(value, p.path), { label: p.label });
  }
  if (c.target_mapping) {
    return [{ type: 'mapping', label: '', path: 'root.test.target_mapping', config: readFileSync(join(dir, c.target_mapping), 'utf8'), processors: [] }];
  }
  const target = c.target_processors ?? '/pipeline/processors';
  if (target.includes('#')) throw new Error(`target_processors in another file ("${target}") is not supported here: copy the processors into this config`);
  if (!target.startsWith('/')) {
    const r = config.processor_resources.find((p) => p.label === target) ?? allComponents(config).find((p) => p.label === target);
    if (!r) throw new Error(`processor resource '${target}' was not found`);
    return [r];
  }
  const at = atPointer(config, target);
  if (isComponent(at)) return [at];
  if (Array.isArray(at) && at.every(isComponent)) return at;
  throw new Error(`target_processors "${target}" names no processor or processor list`);
}

function messageOf(i: InputSpec, dir: string): Message {
  let content: Buffer;
  if (i.file_content !== undefined) content = readFileSync(join(dir, i.file_content));
  else if (i.json_content !== undefined) content = Buffer.from(JSON.stringify(i.json_content));
  else content = Buffer.from(i.content ?? '');
  const m = new Message(content);
  for (const [k, v] of Object.entries(i.metadata ?? {})) m.setMeta(k, v);
  return m;
}

/** Runs one case against the config text; its failures. */
async function runCase(configFile: string, text: string, c: TestCase, dir: string, resourceFiles: string[]): Promise<Failure[]> {
  const failures: Failure[] = [];
  const fail = (reason: string) => failures.push({ name: c.name, line: c.line, reason });
  const env = { ...process.env, ...c.environment };
  const resources = resourceFiles.map((r) => parseConfig(readFileSync(r, 'utf8'), r, env));
  const { config, issues } = validateConfig(parseConfig(text, configFile, env), registry(), resources);
  if (issues.length) throw new ConfigError(issues);
  const builder = new Builder({ registry: registry(), logger: silentLogger, isWorker: false, shared: new Map(), status: new StatusBoard(), scope: newScope() });
  try {
    await builder.buildResources({
      cache_resources: config.cache_resources,
      rate_limit_resources: config.rate_limit_resources,
      processor_resources: config.processor_resources,
    });
    const processors = await builder.processors(targetOf(config, c, dir));
    const inputs = c.input_batches ?? (c.input_batch ? [c.input_batch] : []);
    const outputs: Batch[] = [];
    for (const batch of inputs)
      outputs.push(
        ...(await runProcessors(
          processors,
          batch.map((i) => messageOf(i, dir)),
        )),
      );
    const expected = c.output_batches ?? [];
    if (outputs.length < expected.length) fail(`wrong batch count, expected ${expected.length}, got ${outputs.length}`);
    outputs.forEach((batch, i) => {
      const exp = expected[i];
      if (!exp) return fail(`unexpected batch: ${batch.map((m) => m.text()).join('\n')}`);
      if (exp.length !== batch.length) fail(`mismatch of output batch ${i} message counts, expected ${exp.length}, got ${batch.length}`);
      batch.forEach((m, j) => {
        const spec = exp[j];
        if (!spec) return fail(`unexpected message from batch ${i}: ${m.text()}`);
        const errs: string[] = [];
        for (const [name, check] of conditionsOf(spec, dir)) {
          const problem = check(m);
          if (problem !== undefined) errs.push(`batch ${i} message ${j}: ${name}: ${problem}`);
        }
        for (const e of errs) fail(e);
        if (errs.length && m.error !== undefined) fail(`batch ${i} message ${j}: ${m.error}`);
      });
    });
  } finally {
    await builder.close();
  }
  return failures;
}

export async function test(args: Args): Promise<number> {
  const paths = [...args.positional, ...(args.config ? [args.config] : [])];
  if (paths.length === 0) paths.push('./...');
  await loadBasePlugins(args);
  let found: ReturnType<typeof targets>;
  try {
    found = targets(paths);
  } catch (err) {
    process.stderr.write(`Failed to obtain test targets: ${errorMessage(err)}\n`);
    return 1;
  }
  if (found.size === 0) {
    process.stdout.write('No tests were found\n');
    return 1;
  }
  const failed: Array<{ target: string; lints: string[]; cases: Failure[] }> = [];
  for (const target of [...found.keys()].sort()) {
    const { definition, cases } = found.get(target)!;
    const text = readFileSync(target, 'utf8');
    const dir = dirname(definition);
    const lints = validateConfig(
      parseConfig(text, target),
      registry(),
      args.resources.map((r) => parseConfig(readFileSync(r, 'utf8'), r)),
    ).issues.map((i) => `${i.file}(${i.line},${i.col}) ${i.message}`);
    const failures: Failure[] = [];
    for (const c of cases) {
      try {
        failures.push(...(await runCase(target, text, c, dir, args.resources)));
      } catch (err) {
        const why = err instanceof ConfigError ? err.issues.map((i) => `${i.file}:${i.line}:${i.col} ${i.message}`).join('\n') : errorMessage(err);
        failures.push({ name: c.name, line: c.line, reason: `failed to initialise processors: ${why}` });
      }
    }
    const ok = lints.length === 0 && failures.length === 0;
    process.stdout.write(`Test '${target}' ${ok ? 'succeeded' : 'failed'}\n`);
    if (!ok) failed.push({ target, lints, cases: failures });
  }
  if (failed.length === 0) return 0;
  const out: string[] = ['', 'Failures:', ''];
  failed.forEach((f, i) => {
    if (i > 0) out.push('');
    out.push(`--- ${f.target} ---`, '');
    for (const l of f.lints) out.push(`Lint: ${l}`);
    if (f.cases.length && f.lints.length) out.push('');
    let previous: string | undefined;
    f.cases.forEach((c, j) => {
      if (c.name !== previous) {
        if (j > 0) out.push('');
        out.push(`${c.name} [line ${c.line}]:`);
        previous = c.name;
      }
      out.push(c.reason);
    });
  });
  process.stdout.write(`${out.join('\n')}\n`);
  return 1;
}
