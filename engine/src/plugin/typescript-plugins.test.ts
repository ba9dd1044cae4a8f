/**
 * A plugin written in TypeScript loads as it is, whatever the project it lives in: a CommonJS
 * project (`npm init -y`: no "type") and an ESM one ("type": "module"), as `.ts`, `.mts` and
 * `.cts`. The plugin imports `@svc/engine` (linked into the project's node_modules, as npm
 * installs it) and runs on the main thread and on the workers (threads: 2).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ENGINE_DIR = fileURLToPath(new URL('../../', import.meta.url));
const ENGINE = join(ENGINE_DIR, 'dist/cli/main.js');

const PLUGIN = `import { f, registerProcessor, type Batch } from '@svc/engine';

const spec = f.object({ suffix: f.string().default('!') });

registerProcessor('shout', {
  summary: 'Upper-cases each message (a test plugin).',
  config: spec,
  factory: (conf: { suffix: string }) => ({
    process(batch: Batch) {
      for (const msg of batch) msg.content = Buffer.from(msg.text().toUpperCase() + conf.suffix);
      return [batch];
    },
  }),
});
`;

const work = mkdtempSync(join(tmpdir(), 'svc-ts-plugins-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** A project folder of the given module type with @svc/engine in its node_modules. */
function project(type: 'commonjs' | 'module'): string {
  const dir = join(work, type);
  mkdirSync(join(dir, 'node_modules/@svc'), { recursive: true });
  symlinkSync(ENGINE_DIR, join(dir, 'node_modules/@svc/engine'), 'dir');
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify(type === 'module' ? { name: 'p', type: 'module' } : { name: 'p', version: '1.0.0', main: 'index.js' }),
  );
  return dir;
}

for (const type of ['commonjs', 'module'] as const) {
  describe(`TypeScript plugins in a ${type === 'module' ? 'ESM' : 'CommonJS'} project`, () => {
    const dir = project(type);
    for (const ext of ['ts', 'mts', 'cts']) {
      it(`loads shout.${ext} and runs it on every thread`, () => {
        writeFileSync(join(dir, `shout.${ext}`), PLUGIN);
        const config = `http:\n  enabled: false\nplugins: [./shout.${ext}]\ninput:\n  stdin: {}\npipeline:\n  threads: 2\n  processors:\n    - shout: { suffix: "?" }\noutput:\n  stdout: {}\nlogger:\n  level: WARN\n`;
        writeFileSync(join(dir, `${ext}.yaml`), config);
        const r = spawnSync(process.execPath, [ENGINE, '-c', `${ext}.yaml`], { cwd: dir, input: 'hello\nworld\n', encoding: 'utf8', timeout: 60_000 });
        assert.equal(r.status, 0, r.stderr);
        assert.deepEqual(r.stdout.trim().split('\n').sort(), ['HELLO?', 'WORLD?']);
      });
    }
  });
}
