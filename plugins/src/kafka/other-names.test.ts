/**
 * `kafka_franz` and `redpanda` are refused at load (lint and run) with a message that says to use
 * `kafka` and how the fields map, rather than "unknown input type".
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ENGINE = fileURLToPath(new URL('../../../engine/dist/cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-kafka-names-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function lint(yaml: string): { code: number | null; out: string } {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  const r = spawnSync(process.execPath, [ENGINE, 'lint', file], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('kafka_franz and redpanda', () => {
  for (const name of ['kafka_franz', 'redpanda']) {
    it(`${name} as an input and an output is refused at lint, pointing at kafka and mapping the fields`, () => {
      const r = lint(
        `input:\n  ${name}:\n    seed_brokers: [ 127.0.0.1:9092 ]\n    topics: [ a ]\noutput:\n  ${name}:\n    seed_brokers: [ 127.0.0.1:9092 ]\n    topic: b\n`,
      );
      assert.equal(r.code, 1, r.out);
      assert.match(r.out, new RegExp(`the input "${name}" .* is not implemented: use the "kafka" input instead; its fields differ: seed_brokers → addresses`));
      assert.match(r.out, new RegExp(`the output "${name}" .* is not implemented: use the "kafka" output instead`));
    });
  }
});
