/** The `reject` output: rejects every write with a fixed error (its transactions are nacked). */
import { ErrorCode, SvcError, f, registerOutput, type Batch, type Infer, type Output } from '@svc/engine';

export const rejectSpec = f
  .string()
  .describe(
    'The error text every write fails with. Interpolations (`${! ... }`) arrive with the expression language: for now the text is taken literally.',
  );
export type RejectConfig = Infer<typeof rejectSpec>;

export class RejectOutput implements Output {
  constructor(private readonly text: string) {}

  write(_batch: Batch): Promise<void> {
    return Promise.reject(new SvcError(ErrorCode.Rejected, this.text || 'rejected by the reject output'));
  }
}

registerOutput('reject', {
  summary: 'Rejects every message with an error.',
  description: [
    'Every write fails with the configured text, so the transaction is nacked and its input decides what',
    'happens (replay, or hand the error back to the source). Useful as a `fallback` or `switch` case, and in',
    'tests.',
  ].join('\n'),
  config: rejectSpec,
  examples: [
    `output:
  reject: "this message is not wanted here"`,
  ],
  factory: (text) => new RejectOutput(text),
});
