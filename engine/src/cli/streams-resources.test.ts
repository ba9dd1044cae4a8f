/**
 * Streams mode shares the resources of `-r` files (Benthos): one instance for every stream, on
 * every pipeline thread. Real engine process; the shared resource is a main-thread processor that
 * numbers what it sees, so one instance numbers both streams' messages 1..N without a repeat.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { TEST_PLUGIN } from '../testing/run-config.js';

const ENGINE = fileURLToPath(new URL('./main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-streams-res-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const lines = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8').split('\n').filter(Boolean) : []);

describe('engine streams -r', () => {
  it('every stream uses the one instance of a resource from a -r file, on worker threads too', async () => {
    writeFileSync(join(dir, 'obs.yaml'), 'http: { enabled: false }\nlogger: { level: WARN }\n');
    writeFileSync(join(dir, 'res.yaml'), 'processor_resources:\n  - label: numbered\n    test_main_thread: {}\n');
    const stream = (name: string) => `input:
  generate: { count: 6, interval: "", mapping: 'root = "${name}"' }
pipeline:
  threads: 2
  dispatch: pool
  processors: [ { resource: numbered } ]
output:
  file: { path: ${join(dir, `${name}.out`)}, codec: lines }
`;
    writeFileSync(join(dir, 'a.yaml'), stream('a'));
    writeFileSync(join(dir, 'b.yaml'), stream('b'));
    const child = spawn(
      process.execPath,
      [ENGINE, 'streams', '--plugin', TEST_PLUGIN, '-o', join(dir, 'obs.yaml'), '-r', join(dir, 'res.yaml'), join(dir, 'a.yaml'), join(dir, 'b.yaml')],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let log = '';
    child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      for (let i = 0; lines(join(dir, 'a.out')).length + lines(join(dir, 'b.out')).length < 12; i++) {
        // A guard, not a measure: on a loaded machine two streams and their workers take a while to start.
        if (i > 3000 || child.exitCode !== null) assert.fail(`the streams did not write 12 lines: ${log}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0, log);
    const all = [...lines(join(dir, 'a.out')), ...lines(join(dir, 'b.out'))];
    for (const l of all) assert.match(l, /^[ab]:\d+@0$/, l);
    const numbers = all.map((l) => Number(/:(\d+)@/.exec(l)![1])).sort((x, y) => x - y);
    assert.deepEqual(
      numbers,
      Array.from({ length: 12 }, (_, i) => i + 1),
      'one instance numbered both streams',
    );
  });
});
