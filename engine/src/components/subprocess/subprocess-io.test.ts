import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runEngine } from '../parse/cli-run.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-subprocess-io-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// Benthos v4.51 with the same config (OUT=<file> /tmp/peers/bin/benthos -c <config>) wrote
// "<a>\n<c>\n<  d e>\n<>\n<last>\n" and logged: level=error msg="Failed to read message: oops".
test('subprocess input reads stdout lines (stderr lines are logged read errors), the output writes lines to a program (engine CLI, against Benthos v4.51)', async () => {
  const out = join(dir, 'out.txt');
  const r = await runEngine(`http: { enabled: false }
input:
  subprocess:
    name: sh
    args: [ '-c', 'echo a; echo oops >&2; printf "c\\r\\n  d e\\n\\nlast"' ]
pipeline:
  threads: 1
  processors:
    - mapping: 'root = "<" + content().string() + ">"'
output:
  subprocess:
    name: sh
    args: [ '-c', 'cat > ${out}' ]
logger:
  level: error
`);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(readFileSync(out, 'utf8'), '<a>\n<c>\n<  d e>\n<>\n<last>\n');
  assert.match(r.stdout + r.stderr, /level=error msg="Failed to read message: oops" .*path=root\.input/);
});
