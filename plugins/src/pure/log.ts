import { f, registerProcessor, type LogLevelName } from '@svc/engine';

const LEVELS = ['FATAL', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE', 'ALL'] as const;

const spec = f.object({
  level: f.enum(LEVELS).default('INFO').describe('The level to log at.'),
  message: f.string().default('').interpolated().describe('The message to log.'),
  fields: f.map(f.string()).default({}).describe('Static fields added to the line.'),
});

/**
 * `log`: prints a line per message, with the component's path and label, and passes the
 * batch on unchanged. Interpolation of `message` arrives with the expression language.
 */
registerProcessor('log', {
  summary: 'Prints a log line for each message and passes it on unchanged.',
  config: spec,
  examples: ['pipeline:\n  processors:\n    - log:\n        level: INFO\n        message: received a message\n'],
  factory: (conf, ctx) => {
    const level = (conf.level === 'ALL' ? 'TRACE' : conf.level) as LogLevelName;
    const method = level.toLowerCase() as 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
    const log = ctx.logger.child(conf.fields);
    return {
      process(batch) {
        if (!log.enabled(level)) return [batch];
        for (const m of batch) log[method](conf.message, m.error === undefined ? undefined : { error: m.error });
        return [batch];
      },
    };
  },
});
