// stdin → stdout on a 300 MB file of 100-byte lines, piped in and out, against `cat | cat`; beside
// it Benthos on the same YAML with a tenth of the file (it is slower), its output lines counted.
import { existsSync, statSync, openSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { DATA, ENGINE, best, config, fmt, timeShell } from './lib.mjs';
import { benthosBinary, peerCells } from './peers.mjs';

function dataFile(bytes) {
  const p = join(DATA, `lines-${bytes}.txt`);
  if (existsSync(p) && statSync(p).size === bytes) return p;
  const line = Buffer.from('y'.repeat(99) + '\n');
  const chunk = Buffer.concat(Array.from({ length: 10_000 }, () => line));
  const fd = openSync(p, 'w');
  for (let written = 0; written < bytes; written += chunk.length) writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - written));
  closeSync(fd);
  return p;
}

export async function run({ quick = false } = {}) {
  const bytes = quick ? 50_000_000 : 300_000_000;
  const file = dataFile(bytes);
  const lines = bytes / 100;
  const cfg = config(
    'stdin-stdout',
    'http: { enabled: false }\nlogger: { level: WARN }\ninput: { stdin: {} }\npipeline: { threads: 1 }\noutput: { stdout: {} }\n',
  );
  const cat = best(3, () => timeShell(`cat ${file} | cat > /dev/null`));
  const engine = best(3, () => timeShell(`cat ${file} | node ${ENGINE} -c ${cfg} | cat > /dev/null`));
  // The ratio is judged on the whole process, start-up included (cat has next to none); the
  // steady rate, start-up (an empty stdin) subtracted, is shown beside it.
  const startup = best(3, () => timeShell(`node ${ENGINE} -c ${cfg} < /dev/null | cat > /dev/null`));
  const rate = lines / engine;
  const steady = lines / Math.max(1e-3, engine - startup);
  const benthos = benthosLines(bytes / 10, cfg);
  return [
    {
      bench: 'stdin → stdout, 100-byte lines, piped',
      result: `${fmt(rate)} lines/s, ${fmt(bytes / engine)}B/s whole process (start-up ${Math.round(startup * 1000)} ms; without it ${fmt(steady)} lines/s, ${((cat / (engine - startup)) * 100).toFixed(0)}% of cat)`,
      baseline: `cat piped to cat ${fmt(bytes / cat)}B/s`,
      ratio: cat / engine,
      target: '≥ 2.5 M lines/s and ≥ 40% of cat',
      pass: rate >= 2.5e6 && cat / engine >= 0.4,
      ...peerCells(rate, benthos, 'lines/s'),
    },
  ];
}

/** Benthos' lines per second through the same config, best of 2; undefined without Benthos. */
function benthosLines(bytes, cfg) {
  const bin = benthosBinary();
  if (!bin) return undefined;
  const file = dataFile(bytes);
  const out = join(DATA, 'stdin-stdout-benthos.out');
  const s = best(2, () => timeShell(`cat ${file} | ${bin} -c ${cfg} | cat > ${out}`));
  // A peer that lost lines would look fast: check it wrote them all.
  if (statSync(out).size !== bytes) throw new Error(`Benthos wrote ${statSync(out).size} of ${bytes} bytes from stdin to stdout`);
  return bytes / 100 / s;
}
