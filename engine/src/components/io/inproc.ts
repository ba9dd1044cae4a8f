/**
 * The `inproc` input and output: a named channel inside the process, connecting an `inproc`
 * output of one stream to an `inproc` input of another.
 *
 * The output's write resolves when the input's transaction is acknowledged and rejects when it
 * is nacked, so delivery is at-least-once across the hop. A channel holds at most
 * {@link INPROC_CAPACITY} transactions that no input has taken yet; writers wait beyond that.
 */
import {
  END_OF_INPUT,
  ErrorCode,
  SvcError,
  copyBatch,
  errorMessage,
  f,
  namedTable,
  registerInput,
  registerOutput,
  type Batch,
  type EndOfInput,
  type Input,
  type Output,
  type Transaction,
} from '@svc/engine';

/** Transactions a channel holds before its writers wait. */
export const INPROC_CAPACITY = 64;

interface Entry {
  batch: Batch;
  resolve(): void;
  reject(err: Error): void;
}

/** A named channel: the transactions written and not yet read, and who waits on it. */
class Channel {
  readonly queue: Entry[] = [];
  /** Inputs waiting for a transaction. */
  readonly readers: Array<(e: Entry) => void> = [];
  /** Writers waiting for room. */
  readonly writers: Array<() => void> = [];
  /** Open inputs on this channel. */
  inputs = 0;

  constructor(readonly name: string) {}

  offer(e: Entry): void {
    const r = this.readers.shift();
    if (r) r(e);
    else this.queue.push(e);
  }

  take(): Entry | undefined {
    const e = this.queue.shift();
    if (e) this.writers.shift()?.();
    return e;
  }

  async room(): Promise<void> {
    while (this.queue.length >= INPROC_CAPACITY) await new Promise<void>((resolve) => this.writers.push(resolve));
  }
}

/** The process's channels by name (the engine's table, shared by every stream, like Benthos' pipes). */
const channels = namedTable<Channel>('io.inproc.channels');

function channel(name: string): Channel {
  return channels.obtain(name, () => new Channel(name));
}

/** Transactions waiting in a channel (tests, diagnostics). */
export function inprocQueued(name: string): number {
  return channels.get(name)?.queue.length ?? 0;
}

const nameSpec = (what: string) =>
  f
    .string()
    .validate((v) => (v.trim() === '' ? 'the inproc channel name cannot be empty' : undefined))
    .describe(`The name of the channel to ${what}.`);

export const inprocInputSpec = nameSpec('read from');
export const inprocOutputSpec = nameSpec('write to');

export class InprocInput implements Input {
  private readonly ch: Channel;
  private closed = false;
  private pending: { take: (e: Entry) => void; end: () => void } | undefined;

  constructor(readonly name: string) {
    this.ch = channel(name);
    this.ch.inputs++;
  }

  read(): Promise<Transaction | EndOfInput> | Transaction | EndOfInput {
    if (this.closed) return END_OF_INPUT;
    const e = this.ch.take();
    if (e) return this.transaction(e);
    return new Promise<Transaction | EndOfInput>((resolve) => {
      const take = (entry: Entry): void => {
        this.pending = undefined;
        resolve(this.transaction(entry));
      };
      this.pending = { take, end: () => resolve(END_OF_INPUT) };
      this.ch.readers.push(take);
    });
  }

  private transaction(e: Entry): Transaction {
    let settled = false;
    return {
      batch: copyBatch(e.batch),
      ack: (err?: Error) => {
        if (settled) return;
        settled = true;
        if (!err) return e.resolve();
        e.reject(new SvcError(ErrorCode.Write, `inproc "${this.name}": the receiving stream rejected the batch: ${errorMessage(err)}`, { cause: err }));
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const p = this.pending;
    this.pending = undefined;
    if (p) {
      const i = this.ch.readers.indexOf(p.take);
      if (i >= 0) this.ch.readers.splice(i, 1);
      p.end();
    }
    if (--this.ch.inputs === 0) {
      // Nobody is left to read what waits: fail it back to the writers (their inputs replay it).
      const left = this.ch.queue.splice(0);
      for (const e of left) e.reject(new SvcError(ErrorCode.Shutdown, `inproc "${this.name}": the reading input closed before taking the batch`));
      for (const w of this.ch.writers.splice(0)) w();
    }
  }
}

export class InprocOutput implements Output {
  private readonly ch: Channel;

  constructor(readonly name: string) {
    this.ch = channel(name);
  }

  async write(batch: Batch): Promise<void> {
    if (this.ch.queue.length >= INPROC_CAPACITY) await this.ch.room();
    return new Promise<void>((resolve, reject) => this.ch.offer({ batch, resolve, reject }));
  }
}

registerInput('inproc', {
  summary: 'Reads the transactions an `inproc` output of the same process writes to a named channel.',
  description: [
    'Connects streams inside one process: whatever an `inproc` output writes to the channel of this name',
    "arrives here, batch for batch. Acknowledging a transaction completes the output's write; a nack fails",
    'it, so the writing stream replays it (at-least-once across the hop). Several inputs on one channel',
    'share its transactions. Closing the last input fails back the transactions none has taken.',
  ].join('\n'),
  config: inprocInputSpec,
  examples: [
    `input:
  inproc: enriched_events`,
  ],
  factory: (name) => new InprocInput(name),
});

registerOutput('inproc', {
  summary: 'Writes transactions to a named channel read by an `inproc` input of the same process.',
  description: [
    "A write resolves when the receiving input's transaction is acknowledged and rejects when it is",
    `nacked (at-least-once across the hop). The channel holds at most ${INPROC_CAPACITY} transactions not yet`,
    'taken by an input; beyond that writes wait (back-pressure). Writes wait too while no input is reading.',
  ].join('\n'),
  config: inprocOutputSpec,
  examples: [
    `output:
  inproc: enriched_events`,
  ],
  factory: (name) => new InprocOutput(name),
});
