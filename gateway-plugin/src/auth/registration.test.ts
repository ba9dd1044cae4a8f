// The engine loads the gateway plugin as a built-in: `engine list` names gateway_auth, and a
// config using it (with `{}`) lints clean.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ENGINE = join(import.meta.dirname, '..', '..', '..', 'node_modules', '.bin', 'engine');
const exec = promisify(execFile);

test('engine list names gateway_auth; a config with gateway_auth: {} lints clean', async () => {
  const list = await exec(ENGINE, ['list', '--format', 'json'], { timeout: 60_000 });
  assert.match(list.stdout, /"gateway_auth"/);
  const dir = mkdtempSync(join(tmpdir(), 'gw-auth-'));
  const file = join(dir, 'c.yaml');
  writeFileSync(file, 'input:\n  generate:\n    mapping: root = {}\n    count: 1\npipeline:\n  processors:\n    - gateway_auth: {}\noutput:\n  drop: {}\n');
  const lint = await exec(ENGINE, ['lint', file], { timeout: 60_000 });
  assert.equal(lint.stderr.trim(), '');
  await assert.rejects(exec(ENGINE, ['lint', (writeFileSync(file, 'pipeline:\n  processors:\n    - gateway_auth: { nope: 1 }\n'), file)], { timeout: 60_000 }));
});
