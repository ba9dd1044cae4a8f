/**
 * Test helpers for the network components (the `*.test.ts` files only): an engine or Benthos v4.51
 * (the core build, when it is there) as a child process on a config, its stdout lines collected,
 * and a wait until something listens on an address. Every process is killed when the file ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { EngineProcess } from '@svc/engine/testing';

const dir = mkdtempSync(join(tmpdir(), 'svc-peer-process-'));
const running = new Set<ChildProcess>();
after(() => {
  for (const c of running) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

export const BENTHOS = process.env.SVC_BENTHOS ?? '/tmp/peers/bin/benthos';
/** Why the Benthos half of a test is skipped, or undefined when the binary is there. */
export const benthosMissing: string | undefined = existsSync(BENTHOS) ? undefined : `Benthos is not built at ${BENTHOS}`;

export interface Running {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): string;
}

/** The engine (`svc`) or Benthos on a config. */
export function peerProcess(which: 'svc' | 'benthos', yaml: string): Running {
  if (which === 'svc') return new EngineProcess(yaml);
  const file = join(dir, `benthos-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  const child = spawn(BENTHOS, ['-c', file]);
  running.add(child);
  let text = '';
  child.stderr!.on('data', (d: Buffer) => (text += d.toString()));
  return { child, exited: new Promise((r) => child.once('exit', (c) => r(c))), output: () => text };
}

/** A process whose stdout lines are kept: `lines(n)` waits (up to 30 s) for n of them. */
export function linesOf(p: Running): { lines(n: number): Promise<string[]>; stop(): void } {
  let out = '';
  p.child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  return {
    lines: async (n) => {
      for (let i = 0; i < 600; i++) {
        const l = out.split('\n').filter((x) => x !== '');
        if (l.length >= n) return l;
        await new Promise((r) => setTimeout(r, 50));
      }
      return out.split('\n').filter((x) => x !== '');
    },
    stop: () => p.child.kill('SIGKILL'),
  };
}

/** Resolves once something accepts connections at `address`. */
export async function waitListening(address: string): Promise<void> {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  for (let i = 0; i < 200; i++) {
    const ok = await new Promise<boolean>((r) => {
      const s = connect(port, host, () => {
        s.destroy();
        r(true);
      });
      s.once('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens at ${address}`);
}
