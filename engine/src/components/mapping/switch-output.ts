/** The `switch` output: routes each message to the outputs of the cases its content matches. */
import {
  BatchError,
  ErrorCode,
  SvcError,
  copyBatch,
  errorMessage,
  f,
  maxInFlightField,
  registerOutput,
  type Batch,
  type Logger,
  type Output,
} from '@svc/engine';
import { Backoff, sleep } from '@svc/engine/kit';
import { CaseCheck } from './check.js';

const caseSpec = f.object({
  check: f
    .query()
    .default('')
    .describe(
      "A query that gives a boolean: true when the message goes to this case's output. Empty: every message " +
        'does. A check that fails counts as false (and is logged).',
    ),
  output: f.component('output').describe('The output of this case.'),
  continue: f.bool().default(false).describe('Whether a message that matched this case is also tested against the next cases.'),
});

export const switchOutputSpec = f.object({
  retry_until_success: f
    .bool()
    .default(false)
    .describe(
      'Whether a case whose output fails is retried (that case only, with back-off) until it succeeds. When false, ' +
        'a failing case fails the whole write and the input delivers the batch again, to every case.',
    ),
  strict_mode: f.bool().default(false).advanced().describe('Whether a message that matches no case fails the write (it is nacked) instead of being dropped.'),
  cases: f.array(caseSpec).describe('The cases, tested in order for each message.'),
  max_in_flight: maxInFlightField(
    64,
    'How many batches the switch routes at once. Benthos has no such field: its switch never waits for one batch ' +
      'before routing the next, and neither does this one up to this many (the outputs keep their own limits).',
  )
    .advanced()
    .svcOnly(),
});

/** What strict mode fails a write with. */
export const NO_CASE_MATCHED = 'no switch output conditions were met by message';

interface Case {
  check: CaseCheck;
  output: Output;
  continue: boolean;
  /** `root.output.switch.cases.N.output`, for logs. */
  path: string;
}

/**
 * Routes each message of a batch to the first case whose check matches it (and, with
 * `continue`, to the later matching cases too), writes the parts to their outputs in parallel,
 * and resolves once every part is delivered. A failing part fails the write (the transaction is
 * nacked and its input replays it) unless `retry_until_success` retries it until it succeeds.
 */
export class SwitchOutput implements Output {
  private readonly closing = new AbortController();

  constructor(
    private readonly cases: readonly Case[],
    private readonly retry: boolean,
    private readonly strict: boolean,
    private readonly log: Logger,
  ) {}

  async connect(): Promise<void> {
    // Outputs from ctx.buildOutput connect themselves; others may need it.
    await Promise.all(this.cases.map((c) => c.output.connect?.()));
  }

  /** The messages of the batch for each case (in batch order), or an error in strict mode. */
  route(batch: Batch): Batch[] {
    return this.routeIndexes(batch).map((idx) => idx.map((i) => batch[i]!));
  }

  /** The batch indexes of the messages for each case (in batch order), or an error in strict mode. */
  private routeIndexes(batch: Batch): number[][] {
    const parts: number[][] = this.cases.map(() => []);
    const exec = { batch, index: 0 };
    for (let i = 0; i < batch.length; i++) {
      const m = batch[i]!;
      exec.index = i;
      let routed = false;
      for (let j = 0; j < this.cases.length; j++) {
        const c = this.cases[j]!;
        let pass: boolean;
        try {
          pass = c.check.test(m, exec);
        } catch (err) {
          this.log.error(`Failed to test case ${j}: ${errorMessage(err)}`);
          pass = false;
        }
        if (!pass) continue;
        parts[j]!.push(i);
        routed = true;
        if (!c.continue) break;
      }
      if (!routed && this.strict) throw new SvcError(ErrorCode.Write, NO_CASE_MATCHED);
    }
    return parts;
  }

  /**
   * Writes each case's part in parallel. When some parts failed and others were delivered, the
   * failure is a BatchError naming the messages of the failed parts, so that only they are
   * resent (routed again); a message that went to several cases is resent when any failed.
   */
  async write(batch: Batch): Promise<void> {
    const parts = this.routeIndexes(batch);
    const writes: Promise<Error | undefined>[] = [];
    const written: number[][] = [];
    for (let j = 0; j < parts.length; j++) {
      if (parts[j]!.length === 0) continue;
      written.push(parts[j]!);
      writes.push(
        this.deliver(
          j,
          parts[j]!.map((i) => batch[i]!),
        ),
      );
    }
    // Wait for every part, so that a replay never races a write still in progress.
    const errors = await Promise.all(writes);
    const first = errors.find((e) => e !== undefined);
    if (!first) return;
    if (errors.every((e) => e !== undefined)) throw first;
    const failed = new BatchError(batch.length, first);
    errors.forEach((e, k) => {
      if (e) for (const i of written[k]!) failed.failed(i, e);
    });
    throw failed;
  }

  /** Writes one case's part (copies: the output's processors may edit them), retried when asked to. */
  private async deliver(j: number, part: Batch): Promise<Error | undefined> {
    const c = this.cases[j]!;
    const backoff = new Backoff(100, 1_000);
    for (;;) {
      try {
        await c.output.write(copyBatch(part));
        return undefined;
      } catch (e) {
        const err = e instanceof Error ? e : new Error(String(e));
        if (!this.retry || this.closing.signal.aborted) return err;
        const wait = backoff.next();
        this.log.warn(`Failed to write to ${c.path}, retrying in ${wait}ms: ${err.message}`);
        if (!(await sleep(wait, this.closing.signal))) return err;
      }
    }
  }

  async close(): Promise<void> {
    this.closing.abort();
    await Promise.all(this.cases.map((c) => c.output.close?.()));
  }
}

registerOutput('switch', {
  summary: 'Routes messages to different outputs by their content.',
  description: [
    'Each message is tested against the cases in order and sent to the output of the first case whose `check`',
    'matches (an empty check always does); with `continue: true` on a case, the message is also tested against',
    'the following cases. The messages of a batch bound for one output are written together, in batch order;',
    'the outputs are written in parallel, and the batch is acknowledged once every output confirmed its part.',
    '',
    'A message that matches no case is dropped (acknowledged), unless `strict_mode` is set: then the whole',
    'batch is rejected. When an output fails, the batch is rejected and its input delivers it again (to every',
    'case), unless `retry_until_success` is set: then only the failed part is retried, with back-off, until it',
    'is delivered.',
    '',
    'Routing on `errored()` sends messages that failed processing to a dead letter output.',
  ].join('\n'),
  config: switchOutputSpec,
  examples: [
    `output:
  switch:
    cases:
      - check: errored()
        output:
          file:
            path: ./dead-letter.jsonl
            codec: lines
          processors:
            - mapping: 'root = {"error": error(), "content": content().string()}'
      - output:
          stdout: {}
`,
    `output:
  switch:
    retry_until_success: true
    cases:
      - check: this.type == "audit"
        output:
          file:
            path: ./audit.log
        continue: true
      - check: this.type != "debug"
        output:
          stdout: {}
`,
  ],
  factory: async (conf, ctx) => {
    const cases: Case[] = [];
    try {
      for (const c of conf.cases) {
        cases.push({ check: new CaseCheck(c.check), output: await ctx.buildOutput(c.output), continue: c.continue, path: c.output.path });
      }
    } catch (err) {
      await Promise.all(cases.map((c) => c.output.close?.()));
      throw err;
    }
    return new SwitchOutput(cases, conf.retry_until_success, conf.strict_mode, ctx.logger);
  },
});
