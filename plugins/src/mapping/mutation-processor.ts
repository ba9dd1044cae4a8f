/** The `mutation` processor: a mapping that edits each message in place. */
import { compileMapping, f, registerProcessor, type Batch, type ExecContext } from '@svc/engine';

const spec = f
  .mapping()
  .describe('The mapping: `root` starts as the message itself, so assignments edit it and everything else stays.');

registerProcessor('mutation', {
  summary: 'Edits each message in place with a mapping (Bloblang).',
  description: [
    'Like `mapping`, except that `root` starts as the input document: `root.b = this.a + 1` adds a field and',
    'keeps the others, `root.a = deleted()` removes one. Metadata assignments edit the metadata.',
    '',
    'Assigning `root = deleted()` filters the message out. When the mapping fails at run time the message is',
    'left unchanged (edits made by earlier lines are undone) and flagged with the error.',
  ].join('\n'),
  config: spec,
  examples: [
    `pipeline:
  processors:
    - mutation: |
        root.total = this.items.map_each(i -> i.price * i.quantity).sum()
        root.internal_notes = deleted()
        meta kind = "order"
`,
  ],
  factory: (src, ctx) => {
    const mapping = compileMapping(src);
    const log = ctx.logger;
    return {
      process(batch) {
        const exec: ExecContext = { batch, index: 0 };
        let kept: Batch | undefined;
        for (let i = 0; i < batch.length; i++) {
          const m = batch[i]!;
          exec.index = i;
          // The mapping edits the parsed document in place, so a failure halfway would leave
          // half an edit: keep the bytes to restore. Free unless an earlier step left only JSON.
          const before = m.content;
          let keep = true;
          try {
            keep = mapping.apply(m, exec, true);
          } catch (err) {
            m.content = before;
            m.setError(err);
            log.debug(`Mutation failed: ${m.error}`);
          }
          if (!keep) kept ??= batch.slice(0, i);
          else if (kept !== undefined) kept.push(m);
        }
        if (kept === undefined) return [batch];
        return kept.length > 0 ? [kept] : [];
      },
    };
  },
});
