import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { registry, type ComponentKind } from '@svc/engine';
import '../pure/log.js';
import './index.js';

const ENGINE = fileURLToPath(new URL('../../cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-mapping-examples-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const OURS: Array<[ComponentKind, string]> = [
  ['processor', 'mapping'],
  ['processor', 'bloblang'],
  ['processor', 'mutation'],
  ['processor', 'switch'],
  ['processor', 'try'],
  ['processor', 'catch'],
  ['processor', 'log'],
  ['output', 'switch'],
];

describe('mapping family docs', () => {
  it('every component has a summary, a description and examples that pass lint', () => {
    const files: string[] = [];
    for (const [kind, name] of OURS) {
      const spec = registry().get(kind, name)!.spec;
      assert.ok(spec.summary && spec.description && spec.examples?.length, `${kind} ${name} is documented`);
      spec.examples!.forEach((yaml, i) => {
        const file = join(dir, `${kind}-${name}-${i}.yaml`);
        writeFileSync(file, yaml);
        files.push(file);
      });
    }
    const r = spawnSync(process.execPath, [ENGINE, 'lint', ...files], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.status, 0, r.stderr);
  });
});
