/** The `mutation` processor: a mapping that edits each message in place. */
import { f, registerProcessor } from '@svc/engine';
import { mappingProcessorOf } from './apply-mapping.js';

const spec = f.mapping().describe('The mapping: `root` starts as the message itself, so assignments edit it and everything else stays.');

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
  factory: (src) => mappingProcessorOf(src, true),
});
