/**
 * The same config on both engines: `engine` (this tree's CLI) and Benthos v4.51.0 as
 * `bash /work/shared/peers/benthos/build.sh` builds it (/tmp/peers/bin/benthos, or
 * $SVC_BENTHOS). Each run writes the YAML to a file, runs `-c FILE` (plus `-r` files) with the
 * service HTTP server off, and gives back what the process printed. A test skips the Benthos half,
 * saying so, when the binary is absent (CI does not build it).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';

const ENGINE = fileURLToPath(new URL('../../../engine/dist/cli/main.js', import.meta.url));
const BENTHOS = process.env.SVC_BENTHOS ?? '/tmp/peers/bin/benthos';
const dir = mkdtempSync(join(tmpdir(), 'svc-peer-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Why the Benthos half of a test is skipped, or undefined when the binary is there. */
export const benthosMissing: string | undefined = existsSync(BENTHOS)
  ? undefined
  : `Benthos is not built at ${BENTHOS}: run bash /work/shared/peers/benthos/build.sh to compare against it`;

export interface PeerRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

let files = 0;

/** Writes `text` to a fresh file in the test folder; its path. */
export function peerFile(text: string, ext = 'yaml'): string {
  const p = join(dir, `f${++files}.${ext}`);
  writeFileSync(p, text);
  return p;
}

/**
 * Runs one engine (`svc` or `benthos`) on a config; killed after `timeoutMs` (a guard against a
 * hang, not a speed check: two minutes by default, since a loaded machine took 20 s to start a
 * three-thread stream).
 */
export function runPeer(which: 'svc' | 'benthos', yaml: string, opts: { resources?: string[]; args?: string[]; timeoutMs?: number } = {}): Promise<PeerRun> {
  const config = peerFile(`http:\n  enabled: false\nlogger:\n  level: ERROR\n${yaml}`);
  const args = [...(opts.resources ?? []).flatMap((r) => ['-r', r]), ...(opts.args ?? []), '-c', config];
  const child = which === 'svc' ? spawn(process.execPath, [ENGINE, ...args]) : spawn(BENTHOS, args);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/**
 * Both engines on the same config (or on the config `yaml` gives each, where they must not share a
 * folder): svc's run, and Benthos' (undefined when it is not built).
 */
export async function runBoth(
  yaml: string | ((which: 'svc' | 'benthos') => string),
  opts: { resources?: string[]; args?: string[] } = {},
): Promise<{ svc: PeerRun; benthos?: PeerRun }> {
  const text = (w: 'svc' | 'benthos') => (typeof yaml === 'string' ? yaml : yaml(w));
  const [svc, benthos] = await Promise.all([runPeer('svc', text('svc'), opts), benthosMissing ? undefined : runPeer('benthos', text('benthos'), opts)]);
  return benthos ? { svc, benthos } : { svc };
}

/** A fresh empty folder under the test folder. */
export function peerDir(): string {
  const p = join(dir, `d${++files}`);
  mkdirSync(p);
  return p;
}
