// Config lint: `engine lint` of a config with one big free-form map (logger.static_fields), against
// a bare `yaml.parse` of the same text in a node process of its own (both whole processes, each
// with the start-up of a 10-key run subtracted). Linear lint keeps the ratio flat as the map grows;
// the quadratic duplicate-key check it replaced made 40 000 keys take 44 s.
// Memory: peak RSS of linting a 10 MB config, against the peak of the bare yaml.parse.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ENGINE, ROOT, best, config, timeShell } from './lib.mjs';

const YAML = join(ROOT, 'node_modules', 'yaml', 'dist', 'index.js');
const TIME = '/usr/bin/time';

/** A valid config whose logger.static_fields has `keys` keys with `valueLen`-char quoted values. */
function bigConfig(name, keys, valueLen = 8) {
  const v = 'v'.repeat(valueLen);
  const lines = ['input:', '  stdin: {}', 'logger:', '  static_fields:'];
  for (let i = 0; i < keys; i++) lines.push(`    X-Field-${i}: "${v}${i}"`);
  lines.push('output:', '  drop: {}', '');
  return config(name, lines.join('\n'));
}

const lintCmd = (file) => `node ${ENGINE} lint ${file}`;
// uniqueKeys: false, because the yaml package's own duplicate-key check is the quadratic part.
const parseCmd = (file) => `node -e "require('${YAML}').parse(require('fs').readFileSync('${file}', 'utf8'), { uniqueKeys: false })"`;

/** Peak RSS (MiB) of a shell command, from /usr/bin/time. */
function peakRss(cmd) {
  const r = spawnSync(TIME, ['-f', '%M', 'bash', '-c', cmd], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr}`);
  return Number(r.stderr.trim().split('\n').pop()) / 1024;
}

export async function run({ quick = false } = {}) {
  const sizes = quick ? [10_000, 100_000] : [10_000, 20_000, 40_000, 100_000, 300_000];
  const small = bigConfig('config-lint-10', 10);
  const lintStart = best(2, () => timeShell(lintCmd(small)));
  const parseStart = best(2, () => timeShell(parseCmd(small)));
  const rows = [];
  for (const keys of sizes) {
    const file = bigConfig(`config-lint-${keys}`, keys);
    const runs = keys >= 100_000 ? 1 : 2;
    const lint = Math.max(1e-3, best(runs, () => timeShell(lintCmd(file))) - lintStart);
    const parse = Math.max(1e-3, best(runs, () => timeShell(parseCmd(file))) - parseStart);
    rows.push({
      bench: `config lint: ${keys / 1000}k-key map`,
      result: `${lint.toFixed(2)} s`,
      baseline: `yaml.parse ${parse.toFixed(2)} s`,
      ratio: lint / parse,
      target: '≤ 2× yaml.parse (linear)',
      pass: lint / parse <= 2,
    });
  }
  if (!existsSync(TIME)) return rows;
  // 10 MB two ways: 100k entries of ~100 bytes (long quoted values), 300k of ~36 bytes (more nodes).
  for (const [keys, valueLen] of quick
    ? [[100_000, 80]]
    : [
        [100_000, 80],
        [300_000, 8],
      ]) {
    const file = bigConfig(`config-lint-mem-${keys}`, keys, valueLen);
    const lint = peakRss(lintCmd(file));
    const parse = peakRss(parseCmd(file));
    rows.push({
      bench: `config lint: peak RSS, 10 MB config of ${keys / 1000}k entries`,
      result: `${lint.toFixed(0)} MiB`,
      baseline: `yaml.parse ${parse.toFixed(0)} MiB`,
      ratio: lint / parse,
      target: '≤ 300 MiB',
      pass: lint <= 300,
    });
  }
  return rows;
}
