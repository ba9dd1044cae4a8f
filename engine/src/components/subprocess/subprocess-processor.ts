import { f, registerProcessor } from '@svc/engine';
import { FRAMINGS, type Framing } from './framing.js';
import { SubprocessPipe } from './subprocess-pipe.js';

const spec = f.object({
  name: f.string().describe('The command to execute as a subprocess (a program, run without a shell).'),
  args: f.array(f.string()).default([]).describe('A list of arguments to provide the command.'),
  max_buffer: f.int().default(65536).advanced().describe('The maximum expected response size.'),
  codec_send: f
    .enum(FRAMINGS)
    .default('lines')
    .advanced()
    .describe('Determines how messages written to the subprocess are encoded, which allows them to be logically separated.'),
  codec_recv: f
    .enum(FRAMINGS)
    .default('lines')
    .advanced()
    .describe('Determines how messages read from the subprocess are decoded, which allows them to be logically separated.'),
});

/**
 * `subprocess`: one long-running program that answers each message (Benthos' subprocess
 * processor). With `codec_send: lines` each line of a message is sent alone and the answers are
 * joined with newlines. One program serves every pipeline thread, so it runs on the main thread.
 */
registerProcessor('subprocess', {
  summary: 'Executes a command as a subprocess and, for each message, will pipe its contents to the stdin stream of the process followed by a newline.',
  description:
    'The subprocess must then either return a line over stdout or stderr. If a response is returned over stdout then its contents will replace the message. If a response is instead returned from stderr it will be logged and the message will continue unchanged and will be flagged as failed. If the subprocess exits it is restarted.',
  config: spec,
  mainThread: true,
  examples: [
    "pipeline:\n  processors:\n    - subprocess:\n        name: python3\n        args: [ '-c', 'import sys\\nfor l in sys.stdin: print(l.upper(), end=\"\", flush=True)' ]\n",
  ],
  factory: (conf, ctx) => {
    const pipe = new SubprocessPipe(conf.name, conf.args, conf.codec_recv, conf.max_buffer, ctx.logger);
    const send = async (payload: Buffer, framing: Framing): Promise<Buffer> => {
      try {
        return await pipe.send(payload, framing);
      } catch (err) {
        ctx.logger.error(`Failed to send message to subprocess: ${(err as Error).message}\n`);
        throw err;
      }
    };
    return {
      async process(batch) {
        for (const m of batch) {
          try {
            if (conf.codec_send !== 'lines') {
              m.content = await send(m.content, conf.codec_send);
              continue;
            }
            const lines = m.text().split('\n');
            const results: string[] = [];
            for (let j = 0; j < lines.length; j++) {
              if (lines[j] === '' && lines.length > 1 && j === lines.length - 1) results.push('');
              else results.push((await send(Buffer.from(lines[j]!), 'lines')).toString());
            }
            m.content = Buffer.from(results.join('\n'));
          } catch (err) {
            m.setError(err);
          }
        }
        return [batch];
      },
      close: () => pipe.close(),
    };
  },
});
