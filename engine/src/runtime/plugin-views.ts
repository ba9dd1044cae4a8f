import type { EndOfInput, Transaction } from '../message/transaction.js';
import type { Input, Output } from '../plugin/types.js';
import type { Sink } from './sink.js';
import { FLUSH, type Source } from './source.js';

/**
 * A runtime source as plugin code sees it (`ctx.buildInput`): a plain `Input`. Flush hints are
 * the runtime's business, so they are skipped.
 */
export function inputView(source: Source): Input {
  return {
    connect: () => source.connect(),
    read: () => nextRead(source),
    close: () => source.close(),
  };
}

function nextRead(source: Source): Promise<Transaction | EndOfInput> | Transaction | EndOfInput {
  for (;;) {
    const r = source.read();
    if (r instanceof Promise) return r.then((v) => (v === FLUSH ? nextRead(source) : v));
    if (r !== FLUSH) return r;
  }
}

/**
 * A runtime sink as plugin code sees it (`ctx.buildOutput`): a plain `Output` whose `write`
 * resolves once the batch is delivered. The sink connects itself.
 */
export function outputView(sink: Sink): Output {
  return {
    write: (batch) =>
      new Promise<void>((resolve, reject) => {
        const r = sink.send(batch, (err) => (err ? reject(err) : resolve()));
        if (r instanceof Promise) r.catch(reject);
      }),
    close: () => sink.close(),
  };
}
