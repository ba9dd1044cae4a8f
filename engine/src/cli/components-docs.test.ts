/**
 * The component reference (docs/components/) and the table that names the package a config needs
 * (engine/src/plugin/package-components.ts) are generated from the specs: this fails when a
 * component, field or description changed and `node scripts/components.mjs` was not run.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('the generated component reference', () => {
  it('docs/components/ and package-components.ts are current with the specs', () => {
    const r = spawnSync(process.execPath, ['scripts/components.mjs', '--check'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });
});
