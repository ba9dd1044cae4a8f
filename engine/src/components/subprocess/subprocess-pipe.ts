/**
 * A long-running subprocess spoken to one message at a time (Benthos' subprocWrapper): each
 * payload is written to its stdin, framed, and the answer is its next stdout token; a stderr line
 * instead is an error (with what else it writes to stderr within a second). When the program exits
 * it is started again, and what it left on its pipes is logged. Runs the program with its
 * arguments, never through a shell.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Logger } from '@svc/engine';
import { FrameDecoder, execError, frame, type Framing } from './framing.js';

type Event = { out: Buffer } | { err: Buffer } | { closed: true };

export class SubprocessPipe {
  private child: ChildProcessWithoutNullStreams | undefined;
  private events: Event[] = [];
  private waiter: ((e: Event) => void) | undefined;
  private stopped = false;
  /** Serialises sends: one payload and its answer at a time. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly name: string,
    private readonly args: readonly string[],
    private readonly recv: Framing,
    private readonly maxBuffer: number,
    private readonly log: Logger,
  ) {
    this.start();
  }

  private start(): void {
    const child = spawn(this.name, [...this.args], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    const out = new FrameDecoder(this.recv, this.maxBuffer);
    const err = new FrameDecoder('lines', this.maxBuffer);
    let live = 2;
    const ended = () => {
      if (--live === 0) this.exited(child);
    };
    const feed = (decoder: FrameDecoder, kind: 'out' | 'err', what: string) => (chunk: Buffer) => {
      try {
        for (const t of decoder.push(chunk)) this.emit(kind === 'out' ? { out: t } : { err: t });
      } catch (e) {
        this.log.error(`Failed to read subprocess ${what}: ${(e as Error).message}`);
        child.kill('SIGKILL');
      }
    };
    child.stdout.on('data', feed(out, 'out', 'output'));
    child.stderr.on('data', feed(err, 'err', 'error output'));
    child.stdout.once('end', () => {
      for (const t of out.end()) this.emit({ out: t });
      ended();
    });
    child.stderr.once('end', () => {
      for (const t of err.end()) this.emit({ err: t });
      ended();
    });
    child.stdin.on('error', () => {}); // the exit is what reports a dead program
    child.once('error', (e) => {
      this.log.error(execError(this.name, e, null, null));
      if (live > 0) {
        live = 0;
        this.exited(child);
      }
    });
    this.log.info('Subprocess started');
  }

  /** The program exited: a waiting send fails, what it left is logged, and it starts again. */
  private exited(child: ChildProcessWithoutNullStreams): void {
    if (child !== this.child) return;
    this.child = undefined;
    const left = this.events;
    this.events = [];
    this.emit({ closed: true });
    if (this.stopped) return;
    this.log.warn('Subprocess exited');
    const outs = Buffer.concat(left.flatMap((e) => ('out' in e ? [e.out] : [])));
    const errs = Buffer.concat(left.flatMap((e) => ('err' in e ? [e.err] : [])));
    if (outs.length > 0) this.log.info(outs.toString());
    if (errs.length > 0) this.log.error(errs.toString());
    // a program that cannot start at all is tried again on the next send, not in a tight loop
    setTimeout(() => {
      if (!this.stopped && this.child === undefined) this.start();
    }, 100).unref();
  }

  private emit(e: Event): void {
    const w = this.waiter;
    if (w !== undefined && !('closed' in e && this.events.length > 0)) {
      this.waiter = undefined;
      w(e);
    } else if (!('closed' in e)) this.events.push(e);
  }

  private nextEvent(): Promise<Event> {
    const e = this.events.shift();
    if (e !== undefined) return Promise.resolve(e);
    if (this.child === undefined) return Promise.resolve({ closed: true });
    return new Promise((resolve) => (this.waiter = resolve));
  }

  /** Writes one payload and gives the answer; rejects with the program's stderr or when it is gone. */
  send(payload: Buffer, framing: Framing): Promise<Buffer> {
    const r = this.turn.then(() => this.sendNow(payload, framing));
    this.turn = r.catch(() => {});
    return r;
  }

  private async sendNow(payload: Buffer, framing: Framing): Promise<Buffer> {
    const child = this.child;
    if (child === undefined) throw new Error('type was closed');
    const { prolog, epilog } = frame(framing, payload);
    child.stdin.write(
      prolog === undefined
        ? epilog === undefined
          ? payload
          : Buffer.concat([payload, epilog])
        : Buffer.concat(epilog === undefined ? [prolog, payload] : [prolog, payload, epilog]),
    );
    const e = await this.nextEvent();
    if ('closed' in e) throw new Error('type was closed');
    if ('out' in e) return e.out;
    // an error: gather the rest of its stderr for up to a second, as Benthos does
    const parts = [e.err];
    const until = Date.now() + 1000;
    while (Date.now() < until) {
      const more = await Promise.race([this.nextEvent(), new Promise<undefined>((r) => setTimeout(() => r(undefined), until - Date.now()).unref())]);
      if (more === undefined || 'closed' in more) break;
      if ('err' in more) parts.push(more.err);
      else this.events.unshift(more);
      if ('out' in more) break;
    }
    this.waiter = undefined;
    const text = Buffer.concat(parts).toString();
    if (text === '') return Buffer.alloc(0);
    throw new Error(text);
  }

  async close(): Promise<void> {
    this.stopped = true;
    const child = this.child;
    if (child === undefined) return;
    const gone = new Promise((r) => child.once('close', r));
    child.kill('SIGKILL');
    await gone;
  }
}
