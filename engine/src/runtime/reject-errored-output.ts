/**
 * The `reject_errored` output (Benthos'): messages that failed processing (they carry an error)
 * are nacked with "rejecting due to failed processing: <error>"; the others go to the child
 * output and are acked once it confirmed them. Never acks a message nobody delivered.
 */
import { f, type Infer } from '../config/spec.js';
import { BatchError, ErrorCode, SvcError } from '../errors.js';
import type { Batch } from '../message/message.js';
import type { Ack } from '../message/transaction.js';
import type { RuntimeComponent } from './runtime-component.js';
import type { Sink } from './sink.js';

export const rejectErroredSpec = f.component('output').describe('The output that messages without an error go to.');
type Conf = Infer<typeof rejectErroredSpec>;

const rejection = (error: string) => new SvcError(ErrorCode.Rejected, `rejecting due to failed processing: ${error}`);

export class RejectErroredOutput implements Sink {
  constructor(private readonly output: Sink) {}

  send(batch: Batch, done: Ack): Promise<void> | void {
    let errored = 0;
    for (let i = 0; i < batch.length; i++) if (batch[i]!.error !== undefined) errored++;
    if (errored === 0) return this.output.send(batch, done);
    if (batch.length === 1) return done(rejection(batch[0]!.error!));
    // Some failed: the others are still delivered, the failed ones named so only they come back.
    let failure: BatchError | undefined;
    const clean: Batch = [];
    for (let i = 0; i < batch.length; i++) {
      const e = batch[i]!.error;
      if (e === undefined) clean.push(batch[i]!);
      else {
        const err = rejection(e);
        (failure ??= new BatchError(batch.length, err)).failed(i, err);
      }
    }
    if (clean.length === 0) return done(failure);
    return this.output.send(clean, (err) => {
      if (!err) return done(failure);
      // The child failed too: the whole batch comes back.
      done(err);
    });
  }

  close(): Promise<void> {
    return this.output.close();
  }
}

export const rejectErroredOutput: RuntimeComponent<Conf, Sink> = {
  summary: 'Rejects messages that have failed their processing steps, resulting in nack behavior at the input level, otherwise sends them to a child output.',
  description: [
    'A message that carries an error (a processor failed on it) is rejected with the error',
    '"rejecting due to failed processing: <the error>"; its input then replays it or hands the nack back to',
    'its source. The other messages of the batch go to the child output. Inside a `fallback`, the rejected',
    'messages go to the next tier: a dead letter output.',
  ].join('\n'),
  config: rejectErroredSpec,
  examples: [
    `pipeline:
  processors:
    - mutation: 'root.age = this.fuzzy.age.int64()'
output:
  fallback:
    - reject_errored:
        file:
          path: ./good.jsonl
    - file:
        path: ./dead-letter.jsonl
`,
  ],
  build: async (conf, _ctx, parts) => new RejectErroredOutput(await parts.sink(conf)),
};
