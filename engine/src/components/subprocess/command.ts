import { spawn } from 'node:child_process';
import { compileInterpolation, compileMapping, errorMessage, f, parseJson, registerProcessor, type Message } from '@svc/engine';
import { toStr } from '../../interp/values.js';
import { execError } from './framing.js';

const spec = f.object({
  name: f.string().interpolated().describe('The name of the command to execute (a program, run without a shell).'),
  args_mapping: f.mapping().optional().describe('A mapping that, when specified, should resolve into an array of arguments to pass to the command.'),
});

interface Run {
  stdout: Buffer;
  stderr: Buffer;
  error?: string;
}

/** Runs `name` with `args` (argv, no shell), the message on its stdin. */
function run(name: string, args: string[], input: Buffer): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(name, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let failed: NodeJS.ErrnoException | undefined;
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.stdin.on('error', () => {}); // a command that does not read its stdin closes it early
    child.once('error', (e) => (failed = e));
    child.once('close', (code, signal) => {
      const r: Run = { stdout: Buffer.concat(out), stderr: Buffer.concat(err) };
      if (failed !== undefined || code !== 0) r.error = execError(name, failed, code, signal);
      resolve(r);
    });
    child.stdin.end(input);
  });
}

/**
 * `command`: runs a command per message with the message on its stdin and replaces the message
 * with its stdout (Benthos' command processor). The command runs as a program with its arguments,
 * never through a shell unless `name` is one. Its stderr, if any, goes to `command_stderr`.
 */
registerProcessor('command', {
  summary: 'Executes a command for each message.',
  description:
    'The specified command is executed for each message processed, with the raw bytes of the message being fed into the stdin of the command process, and the resulting message having its contents replaced with the stdout of it. If the command has a non-zero exit status the message is flagged with the exit status and its stderr. If stderr is not empty it is set in the metadata field `command_stderr`.',
  config: spec,
  examples: ["pipeline:\n  processors:\n    - command:\n        name: ${! this.command }\n        args_mapping: 'this.args'\n"],
  factory: (conf) => {
    const name = compileInterpolation(conf.name);
    const argsMapping = conf.args_mapping === undefined ? undefined : compileMapping(conf.args_mapping);
    const one = async (m: Message, batch: Message[], index: number): Promise<void> => {
      let cmd: string;
      try {
        cmd = name.value(m, { batch, index });
      } catch (err) {
        throw new Error(`name interpolation error: ${errorMessage(err)}`);
      }
      let args: string[] = [];
      if (argsMapping !== undefined) {
        let root: unknown;
        try {
          root = argsMapping.exec(m, { batch, index }).root;
          // Benthos reads the mapping's result as a message: a string root is its bytes, read as JSON
          if (typeof root === 'string' || Buffer.isBuffer(root)) root = parseJson(root.toString());
        } catch (err) {
          throw new Error(`args mapping error: ${errorMessage(err)}`);
        }
        if (!Array.isArray(root)) throw new Error(`args mapping result error: expected array value, got ${kindOf(root)}`);
        args = root.map((v) => toStr(v));
      }
      const r = await run(cmd, args, m.content);
      if (r.error !== undefined) throw new Error(`execution error: ${r.error}: ${r.stderr.toString()}`);
      m.content = r.stdout;
      if (r.stderr.length > 0) m.setMeta('command_stderr', r.stderr.toString());
    };
    return {
      async process(batch) {
        for (let i = 0; i < batch.length; i++) {
          const m = batch[i]!;
          await one(m, batch, i).catch((err: unknown) => m.setError(err));
        }
        return [batch];
      },
    };
  },
});

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (Buffer.isBuffer(v)) return 'bytes';
  if (typeof v === 'object') return 'object';
  return typeof v;
}
