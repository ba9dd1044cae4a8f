import type { Processor } from '../plugin/types.js';
import type { ComponentConfig } from '../config/component-config.js';
import { InputFailedError, errorMessage } from '../errors.js';
import { END_OF_INPUT, type Transaction } from '../message/transaction.js';
import type { Logger } from '../observability/logger.js';
import { FLUSH, type Source } from './source.js';

/**
 * What a `buffer` component gives the runtime: a wrap of the stream's input. A buffer sits between
 * the input and the pipeline, reads the input on its own (not when the pipeline asks) and decides
 * when the input's transactions are acked: `memory` acks them once stored, `system_window` when
 * their window is delivered. `none` (the default) does not wrap anything.
 */
export interface StreamBuffer {
  wrap(input: Source, build: BufferBuild): Source | Promise<Source>;
}

/** What a buffer may build with: the processors of its batch policy. */
export interface BufferBuild {
  processors(configs: ComponentConfig[]): Promise<Processor[]>;
}

/** A semaphore-like wake-up list: resolves every waiter on `notify`. */
export class Signal {
  private waiters: (() => void)[] = [];

  wait(): Promise<void> {
    return new Promise((r) => this.waiters.push(r));
  }

  notify(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const r of w) r();
  }
}

/**
 * A buffer's pump: reads `input` to its end on its own, handing each transaction to `take` (which
 * may wait for room). Resolves with the input's failure, for the buffer to raise to its reader once
 * what it holds is given out; another error is logged (`what`: the buffer, for the log line) and
 * ends the reading as the input's end does.
 */
export async function pumpInput(input: Source, take: (tx: Transaction) => unknown, log: Logger, what: string): Promise<{ error: unknown } | undefined> {
  try {
    for (;;) {
      const tx = await input.read();
      if (tx === END_OF_INPUT) return undefined;
      if (tx === FLUSH) continue;
      await take(tx);
    }
  } catch (err) {
    if (err instanceof InputFailedError) return { error: err };
    log.error(`${what} stopped reading its input: ${errorMessage(err)}`);
    return undefined;
  }
}
