/** The `group_by_value` processor (Benthos'): splits a batch into batches of messages with the same value. */
import { compileInterpolation, errorMessage, f, registerProcessor, type Batch } from '@svc/engine';

const spec = f.object({
  value: f.string().interpolated().describe('The interpolated string to group based on.'),
});

registerProcessor('group_by_value', {
  summary: 'Splits a batch into batches of the messages that give the same interpolated value.',
  description: [
    'The groups come out in the order their first message came; within a group the messages keep their',
    'order. A message whose value fails to interpolate is flagged (`group value interpolation error: ...`)',
    'and grouped with the others that failed.',
  ].join('\n'),
  config: spec,
  examples: [
    `pipeline:
  processors:
    - group_by_value:
        value: \${! meta("kafka_key") }
    - archive:
        format: tar
`,
  ],
  factory: (conf, ctx) => {
    let value: ReturnType<typeof compileInterpolation>;
    try {
      value = compileInterpolation(conf.value);
    } catch (err) {
      throw new Error(`failed to parse value expression: ${errorMessage(err)}`);
    }
    const log = ctx.logger;
    return {
      process(batch) {
        if (batch.length === 0) return [];
        const groups = new Map<string, Batch>();
        const exec = { batch, index: 0 };
        for (let i = 0; i < batch.length; i++) {
          const m = batch[i]!;
          exec.index = i;
          let v = '';
          try {
            v = value.value(m, exec);
          } catch (err) {
            log.error(`Group value interpolation error: ${errorMessage(err)}`);
            m.error = `group value interpolation error: ${errorMessage(err)}`;
          }
          const g = groups.get(v);
          if (g) g.push(m);
          else groups.set(v, [m]);
        }
        return [...groups.values()];
      },
    };
  },
});
