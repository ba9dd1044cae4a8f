/**
 * The `mapping` processor (and `bloblang`, its older name): each message becomes the document a
 * mapping builds from it.
 */
import { f, registerProcessor, type ComponentSpec, type Processor } from '@svc/engine';
import { mappingProcessorOf } from './apply-mapping.js';

const spec = f.mapping().describe('The mapping: `root` is the new document, `this` the message as it came in, `meta` its metadata.');

export const mappingProcessor: ComponentSpec<string, Processor> = {
  summary: 'Builds a new document for each message with a mapping (Bloblang).',
  description: [
    'Runs the mapping on each message: the result is a new document that starts empty, built from `root`',
    'assignments, reading the input through `this`, `content()`, `meta(...)`/`@` and the like. A mapping that',
    'never assigns `root` keeps the content; metadata assignments (`meta foo = "bar"`) change the metadata.',
    '',
    'Assigning `root = deleted()` filters the message out (it is acknowledged). When the mapping fails at',
    'run time (a missing field, a wrong type, `throw(...)`), the message is left unchanged and flagged with',
    'the error, which later processors can see (`errored()`, `error()`, `catch`, `try`), and a `switch`',
    'output can route to a dead letter queue.',
    '',
    '`bloblang` is the same processor under its older name.',
  ].join('\n'),
  config: spec,
  examples: [
    `pipeline:
  processors:
    - mapping: |
        root.id = this.user.id
        root.name = this.user.first + " " + this.user.last
        root.tags = this.tags.map_each(t -> t.uppercase())
        meta source = "users"
`,
    `pipeline:
  processors:
    - mapping: 'root = if this.type == "ping" { deleted() }'
`,
  ],
  factory: (src) => mappingProcessorOf(src, false),
};

registerProcessor('mapping', mappingProcessor);
registerProcessor('bloblang', mappingProcessor);
