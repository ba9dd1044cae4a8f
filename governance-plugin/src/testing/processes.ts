/**
 * The governance tests' real processes: `engine hub`, `engine agent` and a gateway, started with
 * node_modules/.bin/engine (and peers such as Tyk), their output kept, every one killed when the test file ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
export const ENGINE = join(root, 'node_modules/.bin/engine');
const running = new Set<ChildProcess>();
after(() => {
  for (const c of running) c.kill('SIGKILL');
});

export interface Proc {
  child: ChildProcess;
  out(): string;
  /** Resolves once `pattern` appears in the output (rejects after `ms`, with the output). */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  /** SIGINT (or `signal`), then the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

export function engine(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Proc {
  return started(ENGINE, args, opts);
}

/** Any program (a peer such as Tyk), kept and killed as the engine's processes are. */
export function started(command: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Proc {
  const child = spawn(command, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const w of waiters) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      for (const w of waiters) w();
      resolve(code);
    }),
  );
  return {
    child,
    out: () => out,
    exited,
    waitFor(pattern, ms = 90_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(out);
          if (m) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(m);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`the process exited before ${pattern} appeared; it said:\n${out}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${pattern} did not appear within ${ms} ms; the process said:\n${out}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    async stop(signal = 'SIGINT') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
  };
}
