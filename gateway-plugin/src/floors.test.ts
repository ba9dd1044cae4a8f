/**
 * The gateway plugin keeps its floors (docs/architecture.md, scripts/gateway-floors.mjs): every
 * file it ships imports only folders on its own floor or below, and no import runs in a circle.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

interface FloorReport {
  files: number;
  backArrows: string[];
  unplaced: string[];
  circles: string[][];
}

const ROOT = new URL('../../', import.meta.url);

describe('gateway plugin floors', () => {
  it('no import runs back up a floor, every folder has a floor, no import circle', async () => {
    const { floorReport } = (await import(new URL('scripts/gateway-floors.mjs', ROOT).href)) as { floorReport: (src: string) => FloorReport };
    const r = floorReport(fileURLToPath(new URL('gateway-plugin/src/', ROOT)));
    // The plugin's whole tree is read (the kernel, the stages and the front door reached from index.ts).
    assert.ok(r.files > 100, `${r.files} files read`);
    assert.deepEqual(r.backArrows, []);
    assert.deepEqual(r.unplaced, []);
    assert.deepEqual(r.circles, []);
  });
});
