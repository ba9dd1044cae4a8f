/**
 * End to end: the `engine` CLI reading a real pipe (stdin) and real files, with a line longer
 * than `max_buffer`: exit code, what reached stdout, what stderr says.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const ENGINE = join(ROOT, 'node_modules/.bin/engine');
const dir = mkdtempSync(join(tmpdir(), 'svc-io-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `engine -c` on a config (YAML), `stdin` written to its standard input through a pipe. */
function engine(name: string, yaml: string, stdin = ''): Promise<Run> {
  const config = join(dir, `${name}.yaml`);
  writeFileSync(config, `http:\n  enabled: false\n${yaml}`);
  const child = spawn(ENGINE, ['-c', config], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.on('error', () => {}); // the engine may stop reading before the end
  child.stdin.end(stdin);
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(killer);
      child.stdout.once('end', () => resolve({ code, stdout, stderr }));
      if (child.stdout.readableEnded) resolve({ code, stdout, stderr });
    }),
  );
}

const LONG = 'x'.repeat(50);

describe('a line longer than max_buffer', () => {
  it('stdin: the lines before it are delivered, then exit 1 naming the input, the limit and the line', async () => {
    const before = Array.from({ length: 10_000 }, (_, i) => `line ${i}`);
    const r = await engine('stdin-error', 'input:\n  stdin:\n    max_buffer: 12\noutput:\n  stdout: {}\n', before.join('\n') + `\n${LONG}\nafter 1\nafter 2\n`);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(r.stdout.split('\n').slice(0, -1), before, 'every line before it, nothing after');
    assert.match(r.stderr, /stdin input \(root\.input\): line 10001 \(starting at byte \d+\) is longer than max_buffer \(12 bytes\)/);
    assert.match(r.stderr, /the 10000 line\(s\) before it are delivered, that line and the rest of stdin were skipped/);
    assert.match(r.stderr, /skip_long_lines: true/);
  });

  it('stdin in a broker with batching and two threads: the batch held is flushed and delivered, then exit 1', async () => {
    const r = await engine(
      'stdin-broker',
      'input:\n  broker:\n    inputs:\n      - stdin:\n          max_buffer: 12\n    batching:\n      count: 1000\n' +
        'pipeline:\n  threads: 2\n  processors:\n    - mapping: root = content().uppercase()\noutput:\n  stdout: {}\n',
      `a\nb\nc\n${LONG}\nd\n`,
    );
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, 'A\nB\nC\n');
    assert.match(r.stderr, /stdin input \(root\.input\.broker\.inputs\.0\): line 4/);
  });

  it('stdin with skip_long_lines: the line is skipped, the rest read, exit 0, the count logged', async () => {
    const r = await engine(
      'stdin-skip',
      'input:\n  stdin:\n    max_buffer: 12\n    skip_long_lines: true\noutput:\n  stdout: {}\n',
      `a\n${LONG}\nb\n${LONG}${LONG}\nc\n${LONG}`,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'a\nb\nc\n');
    assert.match(r.stderr, /stdin: skipped line 2 \(starting at byte 2\): it is longer than max_buffer \(12 bytes/);
    assert.match(r.stderr, /stdin: skipped 3 line\(s\) longer than max_buffer \(12 bytes/);
  });

  it('file: exit 1 naming the file; the files after it are not read', async () => {
    const a = join(dir, 'a.txt');
    const b = join(dir, 'b.txt');
    writeFileSync(a, `a1\na2\n${LONG}\na3\n`);
    writeFileSync(b, 'b1\n');
    const r = await engine('file-error', `input:\n  file:\n    paths: [${a}, ${b}]\n    max_buffer: 10\noutput:\n  stdout: {}\n`);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, 'a1\na2\n');
    assert.ok(r.stderr.includes(`file input (root.input): \\"${a}\\": line 3 (starting at byte 6) is longer than max_buffer (10 bytes)`), r.stderr);
    assert.match(r.stderr, /the rest of the file and 1 more file\(s\) were skipped/);
  });

  it('file with skip_long_lines: every other line of every file, exit 0', async () => {
    const a = join(dir, 'c.txt');
    const b = join(dir, 'd.txt');
    writeFileSync(a, `a1\n${LONG}\na2\n`);
    writeFileSync(b, `${LONG}\nb1\n`);
    const r = await engine('file-skip', `input:\n  file:\n    paths: [${a}, ${b}]\n    max_buffer: 10\n    skip_long_lines: true\noutput:\n  stdout: {}\n`);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'a1\na2\nb1\n');
    assert.ok(r.stderr.includes(`file \\"${a}\\": skipped 1 line(s)`), r.stderr);
    assert.ok(r.stderr.includes(`file \\"${b}\\": skipped line 1 (starting at byte 0)`), r.stderr);
  });
});
