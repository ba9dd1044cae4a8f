import {
  Message,
  compileInterpolation,
  compileMapping,
  errorMessage,
  f,
  registerProcessor,
  type ExecContext,
  type Interpolation,
  type LogFields,
  type Logger,
  type LogLevelName,
  type Mapping,
} from '@svc/engine';

const LEVELS = ['FATAL', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE', 'ALL'] as const;

const spec = f.object({
  level: f.enum(LEVELS).default('INFO').describe('The level to log at.'),
  fields_mapping: f.mapping().default('').describe('A mapping whose result, an object, adds fields to the line of each message (e.g. `root.id = this.id`).'),
  message: f.string().default('').interpolated().describe('The message to log; `${! ... }` is evaluated per message.'),
  fields: f
    .map(f.string().interpolated())
    .default({})
    .describe('Fields added to the line; their values may hold `${! ... }` interpolations. `fields_mapping` is more flexible.'),
});

const NO_MESSAGE = new Message();
const NO_EXEC: ExecContext = { batch: [NO_MESSAGE], index: 0 };

type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * `log`: prints a line per message, with the component's path and label, and passes the
 * batch on unchanged. Logging never fails the message: a message or field that cannot be
 * interpolated is logged as its error text, a failing `fields_mapping` as a field.
 */
registerProcessor('log', {
  summary: 'Prints a log line for each message and passes it on unchanged.',
  description: [
    '`message` is interpolated for each message (`${! this.id }`, `${! meta("kafka_key") }`, `${! error() }`),',
    'and `fields_mapping` adds structured fields: its `root` object becomes fields of the line. The batch is',
    'passed on unchanged. Nothing is evaluated when the level is not enabled.',
    '',
    'A message whose interpolation fails is logged with the error text instead (`failed to interpolate',
    'message: ...`); a `fields_mapping` that fails adds a `fields_mapping_error` field. A message flagged',
    'with an error gets an `error` field.',
  ].join('\n'),
  config: spec,
  examples: [
    'pipeline:\n  processors:\n    - log:\n        level: INFO\n        message: received a message\n',
    `pipeline:
  processors:
    - log:
        level: DEBUG
        message: 'order \${! this.id } for \${! meta("customer") }'
        fields_mapping: |
          root.total = this.total
          root.items = this.items.length()
`,
  ],
  factory: (conf, ctx) => {
    const level = (conf.level === 'ALL' ? 'TRACE' : conf.level) as LogLevelName;
    const method = level.toLowerCase() as Method;
    const message = compileInterpolation(conf.message);
    const fieldsMapping: Mapping | undefined = conf.fields_mapping.trim() === '' ? undefined : compileMapping(conf.fields_mapping);
    // Static texts are read once (with `${{! }}` escapes resolved) and static fields attached
    // once; interpolated ones are evaluated per message.
    const staticText = (i: Interpolation): string => i.value(NO_MESSAGE, NO_EXEC);
    const constant: Record<string, string> = {};
    const dynamic: Array<[string, Interpolation]> = [];
    for (const [k, v] of Object.entries(conf.fields)) {
      const i = compileInterpolation(v);
      if (i.isStatic) constant[k] = staticText(i);
      else dynamic.push([k, i]);
    }
    const log = ctx.logger.child(constant);
    const perMessage = !message.isStatic || fieldsMapping !== undefined || dynamic.length > 0;
    const text = message.isStatic ? staticText(message) : '';
    return {
      process(batch) {
        if (!log.enabled(level)) return [batch];
        const exec: ExecContext = { batch, index: 0 };
        for (let i = 0; i < batch.length; i++) {
          const m = batch[i]!;
          if (!perMessage) {
            log[method](text, m.error === undefined ? undefined : { error: m.error });
            continue;
          }
          exec.index = i;
          line(log, method, m, exec, message, dynamic, fieldsMapping);
        }
        return [batch];
      },
    };
  },
});

function line(
  log: Logger,
  method: Method,
  m: Message,
  exec: ExecContext,
  message: Interpolation,
  dynamic: Array<[string, Interpolation]>,
  fieldsMapping: Mapping | undefined,
): void {
  let fields: LogFields | undefined;
  if (fieldsMapping !== undefined) {
    try {
      const r = fieldsMapping.exec(m, exec, false);
      if (r.root !== undefined && r.root !== null) {
        if (typeof r.root !== 'object' || Array.isArray(r.root) || r.root instanceof Uint8Array) {
          throw new Error(`the result must be an object, got ${Array.isArray(r.root) ? 'an array' : typeof r.root}`);
        }
        fields = { ...(r.root as LogFields) };
      }
    } catch (err) {
      fields = { fields_mapping_error: errorMessage(err) };
    }
  }
  for (const [k, interp] of dynamic) {
    fields ??= {};
    try {
      fields[k] = interp.value(m, exec);
    } catch (err) {
      fields[k] = `failed to interpolate field: ${errorMessage(err)}`;
    }
  }
  if (m.error !== undefined) (fields ??= {}).error = m.error;
  let text: string;
  try {
    text = message.value(m, exec);
  } catch (err) {
    text = `failed to interpolate message: ${errorMessage(err)}`;
  }
  log[method](text, fields);
}
