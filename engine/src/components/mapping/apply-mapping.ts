/**
 * What `mapping` and `mutation` do to a batch: run the mapping on each message, drop the messages
 * whose root it deleted, and flag (not drop) those it failed on, leaving them as they came.
 */
import { compileMapping, type Batch, type Processor } from '@svc/engine';

export function mappingProcessorOf(src: string, mutate: boolean): Processor {
  const mapping = compileMapping(src);
  return {
    process(batch) {
      const exec = { batch, index: 0 };
      let kept: Batch | undefined;
      for (let i = 0; i < batch.length; i++) {
        const m = batch[i]!;
        exec.index = i;
        // A mutation edits the parsed document in place, so a failure halfway would leave half an
        // edit: keep the bytes to restore (free unless an earlier step left only JSON). A mapping
        // changes nothing before it has run to its end.
        const before = mutate ? m.content : undefined;
        let keep = true;
        try {
          keep = mapping.apply(m, exec, mutate);
        } catch (err) {
          if (before !== undefined) m.content = before;
          // Flagged, not logged here: the runtime logs a processor's failures, throttled.
          m.setError(err);
        }
        if (!keep) kept ??= batch.slice(0, i);
        else if (kept !== undefined) kept.push(m);
      }
      if (kept === undefined) return [batch];
      return kept.length > 0 ? [kept] : [];
    },
  };
}
