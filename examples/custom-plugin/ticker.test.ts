/** The ticker command: a plugin subcommand runs a stream built in code beside a lifecycle part. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ENGINE = fileURLToPath(new URL('../../../engine/dist/cli/main.js', import.meta.url));
const PLUGIN = fileURLToPath(new URL('../ticker.ts', import.meta.url));

describe('a plugin CLI command (engine ticker)', () => {
  it('runs its stream and its lifecycle part until SIGINT, then stops both cleanly', async () => {
    const child = spawn(process.execPath, [ENGINE, 'ticker', '--plugin', PLUGIN, '4'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
    for (let i = 0; i < 600 && !out.includes('tick 4'); i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(out.trim().split('\n'), ['tick 1', 'tick 2', 'tick 3', 'tick 4'], err);
    // The stream ended, the uptime part runs on: the process waits for a signal.
    assert.equal(child.exitCode, null);
    child.kill('SIGINT');
    const code = await exited;
    clearTimeout(kill);
    assert.equal(code, 0, err);
    assert.match(err, /uptime started/);
    assert.match(err, /uptime stopped after \d+ ms/);
  });
});
