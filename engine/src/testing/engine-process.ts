/**
 * The `engine` CLI as a child process, for end-to-end tests that kill it (SIGKILL mid-stream),
 * restart it, or run two of them side by side. Every process started is killed when the test
 * file ends, even when an assertion failed first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';

const ENGINE = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-engine-process-'));
const running = new Set<ChildProcess>();
after(() => {
  for (const c of running) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

let configs = 0;

export class EngineProcess {
  readonly child: ChildProcess;
  private out = '';
  readonly exited: Promise<number | null>;

  /**
   * Runs `engine -c <yaml written to a file>` with extra arguments and environment; `stdin`, when
   * given, is written to the engine's standard input, which is then closed (a pipe at its end).
   */
  constructor(yaml: string, args: string[] = [], env: Record<string, string> = {}, stdin?: string) {
    const file = join(dir, `config-${++configs}.yaml`);
    writeFileSync(file, yaml);
    this.child = spawn(process.execPath, [ENGINE, '-c', file, ...args], {
      env: { ...process.env, ...env },
      stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (stdin !== undefined) this.child.stdin!.end(stdin);
    running.add(this.child);
    const keep = (d: Buffer) => {
      this.out += d.toString();
      if (this.out.length > 1_000_000) this.out = this.out.slice(-500_000);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        running.delete(this.child);
        resolve(code ?? (signal ? 128 : null));
      }),
    );
  }

  /** What it printed (stdout and stderr, interleaved). */
  output(): string {
    return this.out;
  }

  /** True once it exited. */
  get done(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** SIGKILL: no shutdown, no final commit, exactly a crash. */
  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGINT (a graceful stop), then the exit code; SIGKILL after `ms`. */
  async stop(ms = 20_000): Promise<number | null> {
    if (this.done) return this.exited;
    this.child.kill('SIGINT');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), ms);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}
