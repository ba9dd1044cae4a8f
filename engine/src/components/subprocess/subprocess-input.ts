import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { END_OF_INPUT, Message, NotConnectedError, f, registerInput, type EndOfInput, type Logger, type Transaction } from '@svc/engine';
import { FrameDecoder, execError } from './framing.js';

const spec = f.object({
  name: f.string().describe('The command to execute as a subprocess (a program, run without a shell).'),
  args: f.array(f.string()).default([]).describe('A list of arguments to provide the command.'),
  codec: f
    .enum(['lines'] as const)
    .default('lines')
    .describe('The way in which messages should be consumed from the subprocess.'),
  restart_on_exit: f.bool().default(false).describe('Whether the command should be re-executed each time the subprocess ends.'),
  max_buffer: f.int().default(65536).advanced().describe('The maximum expected size of an individual message.'),
});

type Event = { line: Buffer } | { error: string } | { exited: true };

/** Lines read ahead of the stream before the program's stdout is paused (back-pressure). */
const READ_AHEAD = 1024;
const NOOP_ACK = (): void => {};

/**
 * The `subprocess` input: each line the program writes to stdout is a message (Benthos'
 * subprocess input); each line on stderr is a read error, logged. When the program exits the
 * input ends, or with `restart_on_exit` it is run again.
 */
class SubprocessInput {
  private child: ChildProcessWithoutNullStreams | undefined;
  private events: Event[] = [];
  private wake: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly conf: { name: string; args: string[]; restart_on_exit: boolean; max_buffer: number },
    private readonly log: Logger,
  ) {}

  async connect(): Promise<void> {
    if (this.child !== undefined) return;
    const child = spawn(this.conf.name, this.conf.args, { stdio: ['ignore', 'pipe', 'pipe'] }) as unknown as ChildProcessWithoutNullStreams;
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (e) => reject(new NotConnectedError(execError(this.conf.name, e, null, null))));
    });
    this.child = child;
    let open = 2;
    const done = () => {
      if (--open === 0) this.push({ exited: true });
    };
    const out = new FrameDecoder('lines', this.conf.max_buffer);
    const err = new FrameDecoder('lines', this.conf.max_buffer);
    const failed = (e: unknown) => {
      this.push({ error: (e as Error).message });
      child.kill('SIGKILL');
    };
    child.stdout.on('data', (d: Buffer) => {
      try {
        for (const line of out.push(d)) this.push({ line });
      } catch (e) {
        failed(e);
      }
      if (this.events.length >= READ_AHEAD) child.stdout.pause();
    });
    child.stderr.on('data', (d: Buffer) => {
      try {
        for (const line of err.push(d)) this.push({ error: line.toString() });
      } catch (e) {
        failed(e);
      }
    });
    child.stdout.once('end', () => {
      for (const line of out.end()) this.push({ line });
      done();
    });
    child.stderr.once('end', () => {
      for (const line of err.end()) this.push({ error: line.toString() });
      done();
    });
  }

  private push(e: Event): void {
    this.events.push(e);
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  async read(): Promise<Transaction | EndOfInput> {
    for (;;) {
      if (this.closed) return END_OF_INPUT;
      const e = this.events.shift();
      if (e === undefined) {
        if (this.child === undefined) throw new NotConnectedError();
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      if (this.events.length < READ_AHEAD / 2) this.child?.stdout.resume();
      if ('line' in e) return { batch: [new Message(e.line)], ack: NOOP_ACK };
      if ('error' in e) {
        this.log.error(`Failed to read message: ${e.error}`);
        continue;
      }
      this.child = undefined;
      if (this.conf.restart_on_exit) throw new NotConnectedError('subprocess exited: running it again');
      return END_OF_INPUT;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    const child = this.child;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((r) => child.once('close', r));
      child.kill('SIGTERM');
      await gone;
    }
  }
}

registerInput('subprocess', {
  summary: 'Executes a command, runs it as a subprocess, and consumes messages from it over stdout.',
  description:
    'Messages are consumed according to a specified codec. The command is executed once and if it terminates the input also closes down gracefully. Alternatively, the field `restart_on_exit` can be set to `true` in order to have Benthos re-execute the command each time it stops. The field `max_buffer` defines the maximum message size able to be read from the subprocess. The command runs as a program with its arguments, never through a shell.',
  config: spec,
  examples: ["input:\n  subprocess:\n    name: tail\n    args: [ '-F', '/var/log/app.log' ]\n"],
  factory: (conf, ctx) => new SubprocessInput(conf, ctx.logger),
});
