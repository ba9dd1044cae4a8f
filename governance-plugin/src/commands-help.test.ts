/**
 * `engine hub --help` and `engine agent --help` print their usage and exit 0 without side
 * effects (no ./hub-data, no admin password, no agent-config.yaml looked for); `engine --help`
 * lists both. Real CLI processes in an empty folder.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ENGINE } from './testing/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-cmd-help-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('plugin commands and --help', () => {
  for (const [command, usage] of [
    ['hub', 'engine hub -c hub.yaml'],
    ['agent', 'engine agent -c agent-config.yaml'],
  ] as const) {
    for (const flag of ['--help', '-h']) {
      it(`engine ${command} ${flag} prints its usage, exits 0 and touches nothing`, () => {
        const r = spawnSync(ENGINE, [command, flag], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
        assert.equal(r.status, 0, r.stdout + r.stderr);
        assert.ok(r.stdout.includes(usage), r.stdout);
        assert.equal(r.stderr, '');
        assert.doesNotMatch(r.stdout, /admin password|agent-config\.yaml:|hub listening/);
        assert.deepEqual(readdirSync(dir), [], 'nothing created in the working folder');
      });
    }
  }

  it('engine --help lists the plugin commands', () => {
    const r = spawnSync(ENGINE, ['--help'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^ {2}engine hub \.\.\. +Runs the governance hub/m);
    assert.match(r.stdout, /^ {2}engine agent \.\.\. +Runs a governance agent/m);
  });
});
