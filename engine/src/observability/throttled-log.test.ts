import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecordingLogger } from '../plugin/testing.js';
import { ThrottledLog } from './throttled-log.js';

describe('ThrottledLog', () => {
  it('lets `burst` lines through per interval, then counts what it left out', async () => {
    const log = new RecordingLogger();
    const t = new ThrottledLog(log, 100, 3);
    for (let i = 0; i < 50; i++) t.error(`failure ${i}`);
    assert.deepEqual(
      log.lines.map((l) => l.msg),
      ['failure 0', 'failure 1', 'failure 2'],
    );
    // The interval ends: the count of what was left out is reported without another failure.
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(log.lines.length, 4);
    assert.equal(log.lines[3]!.level, 'ERROR');
    assert.match(log.lines[3]!.msg, /^47 more like the last one/);
    t.error('failure again');
    assert.equal(log.lines[4]!.msg, 'failure again', 'a new interval lets lines through again');
  });

  it('warns at most once per interval by default, naming how many were skipped with the next line', () => {
    const log = new RecordingLogger();
    const t = new ThrottledLog(log, 60_000);
    t.warn('push failed');
    t.warn('push failed');
    assert.deepEqual(
      log.lines.map((l) => [l.level, l.msg]),
      [['WARN', 'push failed']],
    );
  });
});
