// file input with Benthos' scanners → drop: a CSV file (csv scanner) and a lines file (lines
// scanner), on svc and on Benthos v4.51 with the same YAML in the same run. The baseline is svc's
// own `codec: lines` reading of the lines file (the fast path the scanners sit beside).
import { closeSync, existsSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DATA, best, config, fmt, timeEngine } from './lib.mjs';
import { benthosBinary, peerCells } from './peers.mjs';

function dataFile(name, rows, row) {
  const p = join(DATA, `${name}-${rows}.txt`);
  const header = name === 'csv' ? 'id,name,city,amount\n' : '';
  const size = header.length + rows * row(0).length;
  if (existsSync(p) && statSync(p).size === size) return p;
  const fd = openSync(p, 'w');
  writeSync(fd, header);
  for (let i = 0; i < rows; i += 10_000) writeSync(fd, Array.from({ length: Math.min(10_000, rows - i) }, (_, k) => row(i + k)).join(''));
  closeSync(fd);
  return p;
}

const pad = (n) => String(n % 1e7).padStart(7, '0');
const yaml = (path, reading) =>
  `http: { enabled: false }\nlogger: { level: WARN }\ninput:\n  file:\n    paths: [ ${path} ]\n${reading}pipeline: { threads: 1 }\noutput: { drop: {} }\n`;

export async function run({ quick = false } = {}) {
  const rows = quick ? 200_000 : 1_000_000;
  const csv = dataFile('csv', rows, (i) => `${pad(i)},"Name ${pad(i)}",Lisbon,${pad(i)}.50\n`);
  const lines = dataFile('lines', rows, (i) => `{"id":${pad(i)},"name":"n","city":"Lisbon"}\n`);
  const bin = benthosBinary();
  const measure = (name, path, reading) => {
    const cfg = config(`file-scanner-${name}`, yaml(path, reading));
    const svc = rows / best(2, () => timeEngine(cfg));
    const peer = bin ? rows / best(2, () => timeEngine(cfg, bin)) : undefined;
    return { svc, peer };
  };
  const codec = measure('codec', lines, '    codec: lines\n');
  const out = [];
  for (const [name, path, reading] of [
    ['csv scanner, 4 columns with a header', csv, '    scanner:\n      csv: {}\n'],
    ['lines scanner, 50-byte lines', lines, '    scanner:\n      lines: {}\n'],
  ]) {
    const r = measure(name.split(' ')[0], path, reading);
    out.push({
      bench: `file → drop, ${name}, threads 1 (${fmt(rows)} rows, whole process)`,
      result: `${fmt(r.svc)} rows/s`,
      baseline: `svc codec: lines ${fmt(codec.svc)} rows/s`,
      ratio: r.svc / codec.svc,
      target: '≥ 1× Benthos',
      pass: r.peer === undefined ? undefined : r.svc >= r.peer,
      ...peerCells(r.svc, r.peer, 'rows/s'),
    });
  }
  return out;
}
