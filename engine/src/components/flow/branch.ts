/**
 * The `branch` processor (Benthos'): maps each message to a request, runs processors on the
 * requests, and maps each result back onto the message it came from. The original messages keep
 * their place and count: the children must give one result per request, in order.
 */
import {
  compileMapping,
  errorMessage,
  f,
  mappingTargets,
  registerProcessor,
  type Batch,
  type ComponentContext,
  type Mapping,
  Message,
  type Processor,
  unwrapProcessor,
} from '@svc/engine';
import { runProcessors } from '../mapping/run-processors.js';

const EMPTY = Buffer.alloc(0);

export const branchFields = {
  request_map: f
    .string()
    .default('')
    .describe(
      'A mapping that makes the request for the child processors from each message (`this`, `@` read the message). ' +
        'Empty: the request is an exact copy of the message, metadata included. A root of `deleted()` skips the ' +
        'branch for that message.',
    ),
  processors: f
    .array(f.component('processor'))
    .describe(
      'The processors to apply to the requests. They must give back one message per request, in order: no ' + 'filtering, grouping or splitting in a branch.',
    ),
  result_map: f
    .string()
    .default('')
    .describe(
      'A mapping that writes each result back onto its original message: `this`, `content()` and `metadata()` read ' +
        'the result, `root` starts as the original document and `@` reads the original metadata. Empty: the ' +
        'original message stays unchanged (metadata included).',
    ),
};

export const branchSpec = f.object(branchFields);

export interface BranchConfig {
  request_map: string;
  processors: Parameters<ComponentContext['buildProcessors']>[0];
  result_map: string;
}

/** A failure of the branch on one message: the error text the message gets. */
export interface BranchFailure {
  index: number;
  error: string;
}

/** What a run of the branch's requests gave: a result per message (undefined: skipped or failed). */
export interface BranchResult {
  results: (Message | undefined)[];
  failures: BranchFailure[];
  /** Set when the whole batch failed (the children dropped or added messages). */
  error?: string;
}

/** The branch itself, shared by the `branch` processor and the branches of a `workflow`. */
export class Branch {
  private readonly requestMap: Mapping | undefined;
  private readonly resultMap: Mapping | undefined;
  /** What the request map reads (a workflow runs this branch after those whose result map writes it). */
  readonly targetsUsed: string[][];
  /** What the result map writes. */
  readonly targetsProvided: string[][];

  constructor(
    conf: { request_map: string; result_map: string },
    private readonly children: Processor[],
  ) {
    if (children.length === 0) throw new Error('the branch processor requires at least one child processor');
    this.requestMap = conf.request_map === '' ? undefined : parse(conf.request_map, 'request');
    this.resultMap = conf.result_map === '' ? undefined : parse(conf.result_map, 'result');
    this.targetsUsed = conf.request_map === '' ? [] : mappingTargets(conf.request_map).used;
    this.targetsProvided = conf.result_map === '' ? [] : mappingTargets(conf.result_map).provided;
  }

  /**
   * Maps the requests of `batch` (the messages whose index `skip` does not hold), runs the
   * children on them and aligns their results with the batch. Never touches `batch`.
   */
  async createResult(batch: Batch, skip?: (index: number) => boolean): Promise<BranchResult> {
    const results: (Message | undefined)[] = new Array<Message | undefined>(batch.length).fill(undefined);
    const failures: BranchFailure[] = [];
    const requests: Batch = [];
    const at: number[] = [];
    const exec = { batch, index: 0 };
    for (let i = 0; i < batch.length; i++) {
      if (skip?.(i)) continue;
      const orig = batch[i]!;
      let req: Message;
      if (this.requestMap !== undefined) {
        // The request starts empty with the original's metadata and ctx (Benthos: a shallow copy
        // whose bytes are cleared), so the original's document is never cloned for it.
        req = new Message(EMPTY);
        req.shareMetaOf(orig);
        req.shareCtxOf(orig);
        exec.index = i;
        let keep: boolean;
        try {
          keep = this.requestMap.applyOnto(req, exec);
        } catch (err) {
          failures.push({ index: i, error: `request mapping failed: ${errorMessage(err)}` });
          continue;
        }
        if (!keep) continue;
      } else {
        req = orig.copy();
        req.error = undefined;
      }
      requests.push(req);
      at.push(i);
    }
    if (requests.length === 0) return { results, failures };
    const out = await runProcessors(this.children, requests);
    let got = 0;
    for (const b of out) got += b.length;
    if (got === 0) return { results, failures, error: 'child processors resulted in zero messages' };
    if (got !== requests.length) {
      return {
        results,
        failures,
        error: `message count from branch processors does not match request, started with ${got + batch.length - requests.length} messages, finished with ${batch.length}`,
      };
    }
    let k = 0;
    for (const b of out) {
      for (const m of b) {
        const i = at[k++]!;
        if (m.error !== undefined) failures.push({ index: i, error: `processors failed: ${m.error}` });
        else results[i] = m;
      }
    }
    return { results, failures };
  }

  /** Maps each result onto its message of `batch`; the messages the result map failed on. */
  overlayResult(batch: Batch, results: (Message | undefined)[]): BranchFailure[] {
    const failures: BranchFailure[] = [];
    const map = this.resultMap;
    if (map === undefined) return failures;
    const exec = { batch: results as Message[], index: 0 };
    for (let i = 0; i < results.length; i++) {
      if (results[i] === undefined) continue;
      exec.index = i;
      try {
        map.applyOnto(batch[i]!, exec);
      } catch (err) {
        failures.push({ index: i, error: `result mapping failed: ${errorMessage(err)}` });
      }
    }
    return failures;
  }
}

function parse(src: string, which: 'request' | 'result'): Mapping {
  try {
    return compileMapping(src);
  } catch (err) {
    throw new Error(`failed to parse ${which} mapping: ${errorMessage(err)}`);
  }
}

/** The Branch behind each `branch` processor, so that a workflow can use one declared as a resource. */
const branches = new WeakMap<Processor, Branch>();

/** The Branch a processor (a `branch`, e.g. a processor resource) runs, if it is one. */
export function branchOf(p: Processor): Branch | undefined {
  return branches.get(unwrapProcessor(p));
}

/** Builds a Branch from its config. */
export async function buildBranch(conf: BranchConfig, ctx: ComponentContext): Promise<Branch> {
  return new Branch(conf, await ctx.buildProcessors(conf.processors));
}

registerProcessor('branch', {
  summary: 'Maps each message to a request, runs processors on the requests, and maps the results back into the messages.',
  description: [
    'Keeps the original message while processors that would replace its content (an `http` call, a cache',
    'lookup) work on a request made from it. The `request_map` makes the request (empty: an exact copy), the',
    '`processors` run on the requests of the batch, and the `result_map` writes each result back onto its',
    'message (empty: the result is discarded).',
    '',
    'Metadata added during the branch is not copied back unless the `result_map` says so (`meta = metadata()`,',
    '`meta foo = metadata("bar")`); `@` in the `result_map` reads the original message\'s metadata.',
    '',
    'Errors: a failed `request_map` flags the message (`request mapping failed: ...`) and its request is not',
    'processed; a request the processors flagged flags the message (`processors failed: ...`) and its',
    '`result_map` is not run; a failed `result_map` flags the message (`result mapping failed: ...`), which',
    'otherwise stays as it was. When the processors drop or add messages, every message of the batch is',
    'flagged. A `request_map` whose root is `deleted()` skips the branch for that message.',
  ].join('\n'),
  config: branchSpec,
  examples: [
    `pipeline:
  processors:
    - branch:
        request_map: 'root = ""'
        processors:
          - http:
              url: https://hub.docker.com/v2/repositories/jeffail/benthos
              verb: GET
        result_map: root.image.pull_count = this.pull_count
`,
    `pipeline:
  processors:
    - branch:
        request_map: |
          meta id = this.id
          root = if this.type == "foo" { this.document } else { deleted() }
        processors:
          - cache:
              resource: docs
              operator: set
              key: \${! @id }
              value: \${! content() }
`,
  ],
  factory: async (conf, ctx) => {
    const branch = await buildBranch(conf, ctx);
    const p: Processor = {
      async process(batch) {
        const r = await branch.createResult(batch);
        for (const e of r.failures) batch[e.index]!.error = e.error;
        // The runtime logs what the branch flagged (throttled): no log lines of its own here.
        if (r.error !== undefined) {
          for (const m of batch) m.error = r.error;
          for (const e of r.failures) batch[e.index]!.error = e.error;
          return [batch];
        }
        for (const e of branch.overlayResult(batch, r.results)) batch[e.index]!.error = e.error;
        return [batch];
      },
    };
    branches.set(p, branch);
    return p;
  },
});
