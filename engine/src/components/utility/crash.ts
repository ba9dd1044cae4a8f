import { compileInterpolation, errorMessage, f, registerProcessor } from '@svc/engine';

/**
 * `crash`: logs a fatal line and ends the process with status 1 (Benthos' crash: Go's log.Fatal),
 * for a pipeline that must stop on a message it cannot accept. Runs on the main thread, where
 * exiting ends the process and not only a worker.
 */
registerProcessor('crash', {
  summary:
    'Crashes the process using a fatal log message. The log message can be set using function interpolations, which allows you to log the contents and metadata of messages.',
  config: f.string().default('').interpolated().describe('The fatal message to log.'),
  examples: [
    'pipeline:\n  processors:\n    - switch:\n        - check: this.doc.type == "pet"\n          processors:\n            - crash: \'Unexpected pet: ${! this.doc.name }\'\n',
  ],
  mainThread: true,
  factory: (text, ctx) => {
    const message = compileInterpolation(text);
    return {
      process(batch) {
        const m = batch[0];
        if (m === undefined) return [batch];
        let line: string;
        try {
          line = message.value(m, { batch, index: 0 });
        } catch (err) {
          line = `failed to interpolate crash message: ${errorMessage(err)}`;
        }
        ctx.logger.fatal(line);
        process.exit(1);
      },
    };
  },
});
