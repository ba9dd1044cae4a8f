import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const ENGINE = fileURLToPath(new URL('../../../engine/dist/cli/main.js', import.meta.url));

describe('rate_limit processor', () => {
  it('holds the limit across two pipeline threads (a lower bound on the run time)', () => {
    const cfg = join(mkdtempSync(join(tmpdir(), 'svc-rl-')), 'rl.yaml');
    writeFileSync(
      cfg,
      `http: { enabled: false }
logger: { level: WARN }
input:
  generate: { mapping: 'root = "m"', interval: '', count: 10, batch_size: 1 }
pipeline:
  threads: 2
  processors: [ { rate_limit: { resource: two_per_200ms } } ]
output: { stdout: {} }
rate_limit_resources:
  - label: two_per_200ms
    local: { count: 2, interval: 200ms }
`,
    );
    const t0 = Date.now();
    const r = spawnSync(process.execPath, [ENGINE, '-c', cfg], { encoding: 'utf8', timeout: 30_000 });
    const elapsed = Date.now() - t0;
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'm\n'.repeat(10));
    // 10 messages at 2 per 200ms need at least 4 full windows after the first.
    assert.ok(elapsed >= 800, `took ${elapsed}ms, the limit was not held`);
  });
});
