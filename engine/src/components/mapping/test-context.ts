/**
 * Test helpers for the mapping family (used by the `*.test.ts` files only): a ComponentContext
 * that builds nested processors and outputs through the registry, configs normalised from the
 * YAML-like shape (`{ mapping: 'root = ...' }`) with defaults applied, a logger that records its
 * lines, and a recording output.
 */
import {
  Message,
  f,
  registerOutput,
  registry,
  type Batch,
  type ComponentConfig,
  type ComponentKind,
  type Field,
  type Output,
  type Processor,
} from '@svc/engine';
import { RecordingLogger, testContext as engineTestContext, type TestContext } from '@svc/engine/testing';

export { RecordingLogger, type TestContext } from '@svc/engine/testing';

/** A context whose buildProcessors/buildOutput go through the registry's factories. */
export function testContext(path = 'root.test', logger = new RecordingLogger()): TestContext {
  return engineTestContext({
    type: 'test',
    path,
    logger,
    buildProcessors: async (configs) => {
      const out: Processor[] = [];
      for (const c of configs) out.push((await create('processor', c, logger)) as Processor);
      return out;
    },
    buildOutput: async (c) => (await create('output', c, logger)) as Output,
  });
}

async function create(kind: ComponentKind, c: ComponentConfig, logger: RecordingLogger): Promise<unknown> {
  const reg = registry().get(kind, c.type);
  if (!reg) throw new Error(`${kind} ${c.type} is not registered`);
  return reg.spec.factory(c.config, testContext(c.path, logger));
}

/**
 * A component config as the engine normalises it: `{ <type>: <config>, label? }` becomes
 * `{ type, label, path, config, processors }` with the defaults of the type's spec applied
 * (nested components too). No lint: tests give valid configs.
 */
export function component(kind: ComponentKind, raw: Record<string, unknown>, path = `root.${kind}`): ComponentConfig {
  const entries = Object.entries(raw).filter(([k]) => k !== 'label' && k !== 'processors');
  if (entries.length !== 1) throw new Error(`a ${kind} names exactly one type, got ${entries.map(([k]) => k).join(', ')}`);
  const [type, value] = entries[0]!;
  const reg = registry().get(kind, type);
  if (!reg) throw new Error(`${kind} ${type} is not registered`);
  const procs = (raw.processors as Record<string, unknown>[] | undefined) ?? [];
  return {
    type,
    label: (raw.label as string | undefined) ?? '',
    path,
    config: normalise(reg.spec.config, value, `${path}.${type}`),
    processors: procs.map((p, i) => component('processor', p, `${path}.processors.${i}`)),
  };
}

/** The value with the field's defaults applied and nested components normalised. */
export function normalise(field: Field<unknown>, value: unknown, path: string): unknown {
  if (value === undefined || value === null) {
    if (field.hasDefault) {
      return field.kind === 'component'
        ? component(field.componentKind!, field.defaultValue as Record<string, unknown>, path)
        : structuredClone(field.defaultValue);
    }
    if (field.kind !== 'object') return undefined;
  }
  switch (field.kind) {
    case 'object': {
      const given = (value ?? {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [k, child] of Object.entries(field.fields!)) out[k] = normalise(child, given[k], `${path}.${k}`);
      return out;
    }
    case 'array':
      return (value as unknown[]).map((v, i) => normalise(field.item!, v, `${path}.${i}`));
    case 'map':
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, normalise(field.item!, v, `${path}.${k}`)]));
    case 'component':
      return component(field.componentKind!, value as Record<string, unknown>, path);
    default:
      return value;
  }
}

/** Builds a registered component from its YAML-like config through its factory. */
export async function build<T>(kind: ComponentKind, raw: Record<string, unknown>, ctx: TestContext = testContext()): Promise<T> {
  const c = component(kind, raw);
  return (await registry().get(kind, c.type)!.spec.factory(c.config, ctx)) as T;
}

/** Builds a processor from `{ <type>: <config> }`. */
export function processor(raw: Record<string, unknown>, ctx?: TestContext): Promise<Processor> {
  return build<Processor>('processor', raw, ctx);
}

/** Runs a processor on messages made from texts (with optional metadata) and returns its batches. */
export async function run(p: Processor, batch: Batch): Promise<Batch[]> {
  const r = p.process(batch);
  return r instanceof Promise ? await r : r;
}

/** Messages from texts. */
export function messages(...texts: string[]): Batch {
  return texts.map((t) => new Message(t));
}

/** The texts of a batch, with `!error` appended to flagged messages. */
export function texts(batch: Batch): string[] {
  return batch.map((m) => m.text() + (m.error === undefined ? '' : `!${m.error}`));
}

/** What each `mapping_test_capture` output received, by name: one entry per write. */
export const captured = new Map<string, string[][]>();
/** Writes each named capture output still has to fail. */
export const failWrites = new Map<string, number>();
/** Names of capture outputs that were closed. */
export const closed = new Set<string>();

/**
 * `mapping_test_capture`: an output for tests that records the texts it was given by name
 * (flagged messages as `text!error`), fails while `failWrites` says so, and can be slow.
 */
registerOutput('mapping_test_capture', {
  summary: 'Test output: records what it is given, by name.',
  config: f.object({ name: f.string(), delay_ms: f.int().default(0) }),
  factory: (conf) => {
    captured.set(conf.name, []);
    return {
      async write(batch) {
        if (conf.delay_ms > 0) await new Promise((r) => setTimeout(r, conf.delay_ms));
        const left = failWrites.get(conf.name) ?? 0;
        if (left > 0) {
          failWrites.set(conf.name, left - 1);
          throw new Error(`${conf.name} refused the write (test)`);
        }
        captured.get(conf.name)!.push(texts(batch));
      },
      async close() {
        closed.add(conf.name);
      },
    };
  },
});
