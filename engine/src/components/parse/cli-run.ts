/**
 * Test support: runs a config with the `engine` CLI over a given stdin and gives what it printed,
 * so a test can hold the output beside what the Benthos peer printed for the same config and input.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';

const ENGINE = fileURLToPath(new URL('../../cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-cli-run-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let configs = 0;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `engine -c <yaml> [args]` with `input` on stdin; ends it after 30 s so a test ends by itself. */
export function runEngine(yaml: string, input = '', args: string[] = [], env: Record<string, string> = {}): Promise<CliRun> {
  const file = join(dir, `config-${++configs}.yaml`);
  writeFileSync(file, yaml);
  const child = spawn(process.execPath, [ENGINE, '-c', file, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** A config reading lines from stdin through `processors` (one thread, in order) to stdout. */
export function stdinPipeline(processors: string): string {
  return `http: { enabled: false }\nlogger: { level: none }\ninput:\n  stdin: {}\npipeline:\n  threads: 1\n  processors:\n${processors}\noutput:\n  stdout: {}\n`;
}
