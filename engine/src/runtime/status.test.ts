import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusBoard } from './status.js';

describe('StatusBoard', () => {
  it('is not ready while held (the stream is still being built), then follows its components', () => {
    const b = new StatusBoard();
    assert.deepEqual(b.notReady(), []);
    b.hold('the stream is starting');
    assert.deepEqual(
      b.notReady().map((s) => s.reason),
      ['the stream is starting'],
    );
    const input = b.track('root.input', 'input', 'http_server');
    b.release();
    assert.deepEqual(
      b.notReady().map((s) => s.path),
      ['root.input'],
    );
    input.connected = true;
    assert.deepEqual(b.notReady(), []);
  });
});
