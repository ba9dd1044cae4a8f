import type { Processor } from '../plugin/types.js';
import type { ComponentConfig } from '../config/component-config.js';
import type { Source } from './source.js';

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
