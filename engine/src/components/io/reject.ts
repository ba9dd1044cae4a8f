/** The `reject` output: rejects every write with a fixed error (its transactions are nacked). */
import { ErrorCode, SvcError, compileInterpolation, errorMessage, f, registerOutput, type Batch, type Interpolation, type Output } from '@svc/engine';

export const rejectSpec = f
  .string()
  .describe('The error text every write fails with; may be an interpolation (`${! error() }`), evaluated on the first message of the batch.')
  .interpolated();

export class RejectOutput implements Output {
  private readonly text: Interpolation;
  constructor(text: string) {
    this.text = compileInterpolation(text);
  }

  write(batch: Batch): Promise<void> {
    let reason: string;
    try {
      reason = batch.length ? this.text.value(batch[0]!, { batch, index: 0 }) : '';
    } catch (err) {
      reason = `rejected (the reason could not be interpolated: ${errorMessage(err)})`;
    }
    return Promise.reject(new SvcError(ErrorCode.Rejected, reason || 'rejected by the reject output'));
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
