import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { substituteEnv } from './env.js';

const ENGINE = fileURLToPath(new URL('../../../node_modules/.bin/engine', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-env-'));

/** The value from issue #15: a newline, then a processor at the list's indentation. */
const MSG = `hi\n    - mapping: 'root = "INJECTED"'`;

function engine(args: string[], yaml: string, env: Record<string, string>): { code: number | null; out: string } {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  const r = spawnSync(ENGINE, [...args, file], { encoding: 'utf8', timeout: 60_000, cwd: dir, env: { ...process.env, ...env } });
  return { code: r.status, out: r.stdout + r.stderr };
}

const config = (message: string) =>
  `http: { enabled: false }\nlogger: { level: INFO, format: logfmt }\n` +
  `input:\n  generate: { mapping: 'root = "original"', count: 1, interval: '' }\n` +
  `pipeline:\n  processors:\n    - log:\n        message: ${message}\noutput:\n  stdout: {}\n`;

describe('env substitution', () => {
  it('writes a value on one line: line breaks become \\n and \\r escapes', () => {
    const r = substituteEnv('a: ${A}\nb: "${A}"\nc: ${B:x\ny}\n', { A: 'one\ntwo\r\nthree' });
    assert.equal(r.text, 'a: one\\ntwo\\r\\nthree\nb: "one\\ntwo\\r\\nthree"\nc: x\\ny\n');
  });

  it('a value with a newline cannot add a processor (block scalar: the message keeps the text)', () => {
    const yaml = config(`>-\n          \${MSG}`);
    const run = engine(['-c'], yaml, { MSG });
    assert.equal(run.code, 0, run.out);
    const lines = run.out.split('\n');
    assert.deepEqual(
      lines.filter((l) => l === 'original' || l === 'INJECTED'),
      ['original'],
      run.out,
    );
    const logged = lines.find((l) => l.includes('label=log'));
    assert.ok(logged?.includes(`msg="hi\\\\n    - mapping: 'root = \\"INJECTED\\"'"`), run.out);

    const echoed = engine(['echo', '-c'], yaml, { MSG });
    assert.equal(echoed.code, 0, echoed.out);
    assert.equal(echoed.out.match(/^ {4}- \w+:/gm)?.join(), '    - log:', echoed.out); // one processor
    assert.doesNotMatch(echoed.out, /^\s*- mapping:/m);
  });

  it('a value with a newline in a plain scalar is refused, not run with a new processor', () => {
    const run = engine(['-c'], config('${MSG}'), { MSG });
    assert.equal(run.code, 1, run.out);
    assert.match(run.out, /:8:18 YAML syntax error/);
    assert.doesNotMatch(run.out, /INJECTED\n/);
  });

  it('in a double-quoted scalar the escapes read back as line breaks (as in Benthos)', () => {
    const echoed = engine(['echo', '-c'], config('"${TWO_LINES}"'), { TWO_LINES: 'first\nsecond' });
    assert.equal(echoed.code, 0, echoed.out);
    assert.match(echoed.out, /message: \|-\n\s+first\n\s+second\n/);
  });
});
