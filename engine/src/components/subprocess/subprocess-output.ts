import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { NotConnectedError, f, registerOutput, type Batch, type Logger } from '@svc/engine';
import { execError, frame } from './framing.js';

const spec = f.object({
  name: f.string().describe('The command to execute as a subprocess (a program, run without a shell).'),
  args: f.array(f.string()).default([]).describe('A list of arguments to provide the command.'),
  codec: f
    .enum(['lines'] as const)
    .default('lines')
    .describe('The way in which messages should be written to the subprocess.'),
});

/**
 * The `subprocess` output: writes each message as a line to a program's stdin (Benthos'
 * subprocess output). When the program exits (its exit and stderr logged) the output reconnects
 * by running it again; a write is done once the line is handed to the pipe.
 */
class SubprocessOutput {
  private child: ChildProcessWithoutNullStreams | undefined;

  constructor(
    private readonly conf: { name: string; args: string[] },
    private readonly log: Logger,
  ) {}

  async connect(): Promise<void> {
    if (this.child !== undefined) return;
    const child = spawn(this.conf.name, this.conf.args, { stdio: ['pipe', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (e) => reject(new NotConnectedError(execError(this.conf.name, e, null, null))));
    });
    child.stdin.on('error', () => {}); // the exit is what reports a dead program
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.once('close', (code, signal) => {
      if (this.child === child) this.child = undefined;
      const stdout = Buffer.concat(out);
      this.log.debug(stdout.length > 0 ? `Process exited with: ${stdout.toString()}\n` : 'Process exited');
      const stderr = Buffer.concat(err);
      if (stderr.length > 0) this.log.error(`Process exited with error: ${stderr.toString()}\n`);
      else if (code !== 0) this.log.error(`Process exited with code ${code ?? -1}: ${execError(this.conf.name, undefined, code, signal)}\n`);
    });
    this.child = child;
  }

  async write(batch: Batch): Promise<void> {
    const child = this.child;
    if (child === undefined || child.stdin.destroyed) throw new NotConnectedError();
    const parts: Buffer[] = [];
    for (const m of batch) {
      const { epilog } = frame('lines', m.content);
      parts.push(m.content, epilog!);
    }
    await new Promise<void>((resolve, reject) => child.stdin.write(Buffer.concat(parts), (e) => (e ? reject(new NotConnectedError(e.message)) : resolve())));
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined) return;
    const gone = new Promise((r) => child.once('close', r));
    child.stdin.end();
    await gone;
  }
}

registerOutput('subprocess', {
  summary: 'Executes a command, runs it as a subprocess, and writes messages to it over stdin.',
  description:
    'Messages are written according to a specified codec. The process is expected to terminate gracefully when stdin is closed. If the subprocess exits unexpectedly then Benthos will log anything printed to stderr and will log the exit code, and will attempt to execute the command again until success. The command runs as a program with its arguments, never through a shell.',
  config: spec,
  examples: ["output:\n  subprocess:\n    name: tee\n    args: [ '-a', '/tmp/out.txt' ]\n"],
  factory: (conf, ctx) => new SubprocessOutput(conf, ctx.logger),
});
