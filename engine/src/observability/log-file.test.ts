/**
 * `logger.file`: lines appended to the file; with `rotate`, at 10 MB the file becomes one gzipped
 * backup named as Benthos' lumberjack names it, and only the newest backup is kept.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { FileLogSink } from './log-file.js';

const ENGINE = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-log-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('logger.file', () => {
  it('the engine writes its log lines to the file, not stderr; an unopenable path is a clear error', () => {
    const log = join(dir, 'engine.log');
    writeFileSync(log, 'kept\n');
    const conf = join(dir, 'c.yaml');
    writeFileSync(
      conf,
      `http: { enabled: false }\nlogger: { level: INFO, file: { path: ${log} } }\ninput: { generate: { mapping: root = 1, count: 1, interval: "" } }\noutput: { stdout: {} }\n`,
    );
    const r = spawnSync(process.execPath, [ENGINE, '-c', conf], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '1\n');
    assert.equal(r.stderr, '');
    const text = readFileSync(log, 'utf8');
    assert.ok(text.startsWith('kept\n'), 'appended');
    assert.match(text, /level=info msg="Output is now active"/);
    writeFileSync(conf, `http: { enabled: false }\nlogger: { file: { path: ${join(dir, 'missing', 'x.log')} } }\n`);
    const bad = spawnSync(process.execPath, [ENGINE, '-c', conf], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /cannot open the log file of logger\.file\.path: ENOENT/);
  });

  it('rotates at 10 MB into one gzipped backup, keeping only the newest', () => {
    const path = join(dir, 'rot.log');
    const sink = new FileLogSink({ path, rotate: true, rotate_max_age_days: 0 });
    const line = `${'x'.repeat(99)}\n`;
    const lines = 110_000; // 11 MB: one rotation
    for (let i = 0; i < lines; i++) sink.write(i === 0 ? `first${line.slice(5)}` : line);
    const backups = readdirSync(dir).filter((n) => /^rot-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log\.gz$/.test(n));
    assert.equal(backups.length, 1, readdirSync(dir).join(', '));
    const old = gunzipSync(readFileSync(join(dir, backups[0]!))).toString();
    assert.ok(old.startsWith('first'), 'the backup holds the oldest lines');
    assert.equal(old.length + statSync(path).size, lines * line.length, 'no line lost or written twice');
    assert.ok(old.length <= 10 * 1024 * 1024);
    for (let i = 0; i < lines; i++) sink.write(line);
    assert.equal(readdirSync(dir).filter((n) => n.startsWith('rot-')).length, 1, 'one backup kept');
  });
});
