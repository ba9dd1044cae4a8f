/**
 * The `sequence` input (Benthos'): reads the first child input until it ends, then the next, and
 * so on; the sequence ends with its last child. A child's transactions are acked by whatever
 * delivered them, as ever: moving to the next child does not ack anything.
 */
import { f, type Infer } from '../config/spec.js';
import { ErrorCode, SvcError } from '../errors.js';
import { END_OF_INPUT } from '../message/transaction.js';
import type { RuntimeComponent } from './runtime-component.js';
import type { Source, SourceRead } from './source.js';

export const sequenceInputSpec = f.object({
  sharded_join: f
    .object({
      type: f
        .enum(['none', 'full-outer', 'outer', 'full-outter', 'outter'] as const)
        .default('none')
        .describe('The type of join to perform. Only `none` is implemented: a join is refused at load.'),
      id_path: f
        .string()
        .default('')
        .describe('A dot path that points to a common field within messages of each fragmented data set and can be used to join them.'),
      iterations: f.int().default(1).describe('The total number of iterations (shards).'),
      merge_strategy: f
        .enum(['array', 'replace', 'keep'] as const)
        .default('array')
        .describe('The chosen strategy to use when a data join would otherwise result in a collision of field values.'),
    })
    .advanced()
    .describe('EXPERIMENTAL in Benthos: outer joins of the data the inputs give. Not implemented here: any type but `none` is refused at load.'),
  inputs: f.array(f.component('input')).describe('An array of inputs to read from sequentially.'),
});
type Conf = Infer<typeof sequenceInputSpec>;

export class SequenceInput implements Source {
  private current = 0;

  constructor(private readonly children: Source[]) {}

  connect(): Promise<void> {
    return Promise.resolve();
  }

  read(): Promise<SourceRead> | SourceRead {
    const child = this.children[this.current];
    if (!child) return END_OF_INPUT;
    const r = child.read();
    if (r instanceof Promise) return r.then((v) => this.after(v));
    return this.after(r);
  }

  /** On a child's end, closes it and reads the next. */
  private after(r: SourceRead): Promise<SourceRead> | SourceRead {
    if (r !== END_OF_INPUT) return r;
    const ended = this.children[this.current++]!;
    return ended.close().then(() => this.read());
  }

  async close(): Promise<void> {
    await Promise.all(this.children.slice(this.current).map((c) => c.close()));
  }
}

export const sequenceInput: RuntimeComponent<Conf, Source> = {
  summary:
    'Reads messages from a sequence of child inputs, starting with the first and once that input gracefully terminates starts consuming from the next, and so on.',
  description: 'This input is useful for consuming from inputs that have an explicit end but must not be consumed in parallel.',
  config: sequenceInputSpec,
  examples: [
    `input:
  sequence:
    inputs:
      - file:
          paths: [ ./dataset.csv ]
          scanner:
            csv: {}
      - generate:
          count: 1
          interval: ""
          mapping: 'root = {"status":"finished"}'
`,
  ],
  build: async (conf, _ctx, parts) => {
    if (conf.sharded_join.type !== 'none') {
      throw new SvcError(
        ErrorCode.ConfigLint,
        `sequence: sharded_join type ${conf.sharded_join.type} is not implemented: remove sharded_join, or join with a cache and a workflow`,
      );
    }
    const children: Source[] = [];
    for (const c of conf.inputs) children.push(await parts.source(c));
    return new SequenceInput(children);
  },
};
