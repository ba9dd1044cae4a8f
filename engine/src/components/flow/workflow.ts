/**
 * The `workflow` processor (Benthos'): runs named branches in tiers, the branches of a tier side
 * by side on the same messages, their results mapped back in tier order. The tiers are `order`, or
 * else come from the branches' mappings (a branch that reads what another writes runs after it).
 * What each message went through is written into it at `meta_path`, and read back from there, so
 * a replayed message skips the branches it already passed.
 */
import { f, getPath, registerProcessor, setPath, type Batch } from '@svc/engine';
import { branchOf, branchFields, buildBranch, type Branch } from './branch.js';

const spec = f.object({
  meta_path: f
    .string()
    .default('meta.workflow')
    .describe(
      'A dot path where the record of what the workflow did (`succeeded`, `skipped`, `failed`) is written into each message. Empty: no record; a message a branch failed on is flagged instead.',
    ),
  order: f
    .array(f.array(f.string()))
    .default([])
    .describe(
      'Tiers of branch names, run in order; the branches of a tier run side by side. Names from `branches`, or processor resources that are `branch` processors. Empty: the tiers are worked out from the mappings.',
    ),
  branch_resources: f
    .array(f.string())
    .default([])
    .describe(
      'Processor resources (`branch` processors) to include besides `branches`, ordered automatically with them. Not needed for resources named in `order`.',
    )
    .advanced(),
  branches: f.map(f.object(branchFields)).default({}).describe('The named `branch` processors of the workflow.'),
});

const STAGE_NAME = /^[a-zA-Z0-9-_]+$/;

/** What one message went through: Benthos' result tracker. */
class Outcome {
  readonly succeeded = new Set<string>();
  readonly skipped = new Set<string>();
  readonly failed = new Map<string, string>();

  constructor(dag: string[][]) {
    for (const tier of dag) for (const id of tier) this.succeeded.add(id);
  }

  skip(id: string): void {
    this.succeeded.delete(id);
    this.skipped.add(id);
  }

  fail(id: string, why: string): void {
    this.succeeded.delete(id);
    this.skipped.delete(id);
    this.failed.set(id, why);
  }

  toObject(previous: unknown): Record<string, unknown> {
    const o: Record<string, unknown> = {};
    if (this.failed.size > 0) o.failed = Object.fromEntries([...this.failed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    if (previous !== undefined && previous !== null) o.previous = previous;
    if (this.skipped.size > 0) o.skipped = [...this.skipped].sort();
    if (this.succeeded.size > 0) o.succeeded = [...this.succeeded].sort();
    return o;
  }
}

registerProcessor('workflow', {
  summary: 'Runs a set of `branch` processors in tiers, the branches of a tier side by side.',
  description: [
    'Each branch is a `branch` processor (`request_map`, `processors`, `result_map`). The branches of a tier',
    'run at the same time on the same messages, which pays where they wait on a network (`http`, `cache`);',
    'their results are then mapped back in the order of the tier. `order` gives the tiers; without it they',
    "come from the mappings: a branch whose `request_map` reads a field (or metadata) that another branch's",
    '`result_map` writes runs after it. A branch whose `request_map` gives `deleted()` is skipped.',
    '',
    'With `meta_path` (default `meta.workflow`) each message gets a record at that path:',
    '`{"succeeded": [...], "skipped": [...], "failed": {"name": "error"}}`, the record it had before kept under',
    '`previous`. A message that already has a record skips the branches listed there as succeeded or',
    'skipped (a replay retries only what failed); an `apply` array in it names the only branches to run.',
    'With `meta_path: ""` a message a branch failed on is flagged `workflow branches failed: [names]`.',
  ].join('\n'),
  config: spec,
  examples: [
    `pipeline:
  processors:
    - workflow:
        meta_path: meta.workflow
        branches:
          foo:
            request_map: 'root = ""'
            processors:
              - http:
                  url: http://localhost:8080/foo
            result_map: 'root.foo = this'
          bar:
            request_map: 'root = this.body'
            processors:
              - mapping: 'root = content().uppercase()'
            result_map: 'root.bar = content().string()'
          baz:
            request_map: |
              root.fooid = this.foo.id
              root.barstuff = this.bar
            processors:
              - cache:
                  resource: store
                  operator: set
                  key: \${! json("fooid") }
                  value: \${! json("barstuff") }
`,
    `pipeline:
  processors:
    - workflow:
        order: [ [ foo, bar ], [ baz ] ]
        branches:
          bar:
            request_map: 'root = this.body'
            processors:
              - mapping: 'root = content().uppercase()'
            result_map: 'root.bar = content().string()'
processor_resources:
  - label: foo
    branch:
      processors:
        - mapping: 'root = "foo"'
      result_map: 'root.foo = content().string()'
  - label: baz
    branch:
      request_map: 'root = this.foo + this.bar'
      processors:
        - log: { message: '\${! content() }' }
`,
  ],
  factory: async (conf, ctx) => {
    const branches = new Map<string, Branch>();
    for (const [name, bc] of Object.entries(conf.branches)) {
      if (!STAGE_NAME.test(name)) throw new Error(`workflow branch name '${name}' contains invalid characters`);
      branches.set(name, await buildBranch(bc, ctx));
    }
    const fromResource = (name: string): Branch => {
      if (!ctx.resources.has('processor', name)) throw new Error(`processor resource '${name}' was not found`);
      const b = branchOf(ctx.resources.get('processor', name));
      if (b === undefined) throw new Error(`processor resource '${name}' is not a branch processor: a workflow runs branch processors only`);
      return b;
    };
    for (const name of conf.branch_resources) {
      if (branches.has(name)) throw new Error(`branch resource name '${name}' collides with an explicit branch`);
      branches.set(name, fromResource(name));
    }
    for (const tier of conf.order) for (const name of tier) if (!branches.has(name)) branches.set(name, fromResource(name));
    const dag = conf.order.length > 0 ? checkedOrder(conf.order, branches) : resolveOrder(branches);
    if (conf.order.length === 0 && dag.length > 0) ctx.logger.info(`Automatically resolved workflow DAG: ${goList(dag.map(goList))}`);
    const allStages = new Set(branches.keys());
    const metaPath = conf.meta_path === '' ? undefined : conf.meta_path;
    const log = ctx.logger;

    return {
      async process(batch: Batch) {
        const skipOnMeta = batch.map((m) => (metaPath === undefined ? new Set<string>() : skipFromMeta(tryJson(m), metaPath, allStages)));
        const records = batch.map(() => new Outcome(dag));
        for (const tier of dag) {
          const runs = await Promise.all(tier.map((id) => branches.get(id)!.createResult(batch, (i) => skipOnMeta[i]!.has(id))));
          for (let t = 0; t < tier.length; t++) {
            const id = tier[t]!;
            const r = runs[t]!;
            for (let j = 0; j < r.results.length; j++) if (r.results[j] === undefined) records[j]!.skip(id);
            for (const e of r.failures) records[e.index]!.fail(id, e.error);
          }
          for (let t = 0; t < tier.length; t++) {
            const id = tier[t]!;
            const r = runs[t]!;
            if (r.error !== undefined) {
              log.error(`Failed to perform enrichment '${id}': ${r.error}`);
              for (const rec of records) rec.fail(id, r.error);
              continue;
            }
            for (const e of branches.get(id)!.overlayResult(batch, r.results)) records[e.index]!.fail(id, e.error);
          }
        }
        for (let i = 0; i < batch.length; i++) {
          const m = batch[i]!;
          const rec = records[i]!;
          if (metaPath !== undefined) {
            let doc: unknown;
            try {
              doc = m.json();
            } catch (err) {
              log.error(`Failed to parse message for meta update: ${String(err)}`);
              m.setError(err);
              continue;
            }
            m.setJson(setPath(doc, metaPath, rec.toObject(getPath(doc, metaPath))));
          } else if (rec.failed.size > 0) {
            m.error = `workflow branches failed: ${goList([...rec.failed.keys()].sort())}`;
          }
        }
        return [batch];
      },
    };
  },
});

/** Go's %v of a string slice: `[a b]`. */
function goList(items: string[]): string {
  return `[${items.join(' ')}]`;
}

function tryJson(m: { json(): unknown }): unknown {
  try {
    return m.json();
  } catch {
    return undefined;
  }
}

/** The branches a message's record says to skip: those it succeeded or skipped before, or those not in `apply`. */
function skipFromMeta(doc: unknown, metaPath: string, all: Set<string>): Set<string> {
  const skip = new Set<string>();
  if (doc === undefined) return skip;
  const apply = getPath(doc, `${metaPath}.apply`);
  if (Array.isArray(apply) && apply.length > 0) {
    for (const k of all) skip.add(k);
    for (const id of apply) if (typeof id === 'string') skip.delete(id);
  }
  for (const key of ['succeeded', 'skipped']) {
    const list = getPath(doc, `${metaPath}.${key}`);
    if (Array.isArray(list)) for (const id of list) if (typeof id === 'string' && all.has(id)) skip.add(id);
  }
  return skip;
}

function checkedOrder(order: string[][], branches: Map<string, Branch>): string[][] {
  const seen = new Set<string>();
  for (let i = 0; i < order.length; i++) {
    const tier = order[i]!;
    if (tier.length === 0) throw new Error(`explicit order tier '${i}' was empty`);
    for (const t of tier) {
      if (seen.has(t)) throw new Error(`branch specified in order listed multiple times: ${t}`);
      seen.add(t);
    }
  }
  const missing = [...branches.keys()].filter((k) => !seen.has(k)).sort();
  if (missing.length > 0) throw new Error(`the following branches were missing from order: ${goList(missing)}`);
  return order;
}

/** Benthos' automatic DAG: a branch depends on those whose result map writes a prefix of what its request map reads. */
function resolveOrder(branches: Map<string, Branch>): string[][] {
  const deps = new Map<string, Set<string>>();
  for (const [id, b] of branches) {
    const mine = new Set<string>();
    for (const [k, other] of branches) {
      if (k === id) continue;
      if (other.targetsProvided.some((tp) => b.targetsUsed.some((tn) => hasPrefix(tn, tp)))) mine.add(k);
    }
    deps.set(id, mine);
  }
  const layers: string[][] = [];
  while (deps.size > 0) {
    const ready = [...deps].filter(([, d]) => d.size === 0).map(([k]) => k);
    if (ready.length === 0) {
      throw new Error(`failed to automatically resolve DAG, circular dependencies detected for branches: ${goList([...deps.keys()].sort())}`);
    }
    ready.sort();
    for (const id of ready) deps.delete(id);
    for (const d of deps.values()) for (const id of ready) d.delete(id);
    layers.push(ready);
  }
  return layers;
}

function hasPrefix(wanted: string[], provided: string[]): boolean {
  if (wanted.length < provided.length) return false;
  for (let i = 0; i < provided.length; i++) if (wanted[i] !== provided[i]) return false;
  return true;
}
