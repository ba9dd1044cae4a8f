/**
 * unarchive's bounds (`max_entries`, `max_entry_bytes`, `max_total_bytes`): an archive that passes
 * one is flagged with an error and passes on as it was, for every format; a zip entry is refused at
 * the size it declares, so a zip of overlapping entries never inflates past the bound (the peak
 * memory of the process says so). An archive within the bounds unarchives as before.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message, registry, type Batch } from '@svc/engine';
import { lintValue } from '@svc/engine/testing';
import { processor, run } from '../mapping/test-context.js';
import { serializeParts } from './binary-parts.js';
import { writeTar } from './tar.js';
import { writeZip } from './zip.js';
import './index.js';

const MiB = 1 << 20;
const CENTRAL = 0x02014b50;

async function unarchived(conf: Record<string, unknown>, content: Buffer | string): Promise<Batch> {
  const p = await processor({ unarchive: conf });
  const out = await run(p, [new Message(content)]);
  return out[0] ?? [];
}

/** One flagged message, its content the archive as it came. */
function assertRefused(out: Batch, archive: Buffer | string, pattern: RegExp): void {
  assert.equal(out.length, 1, 'the message passes on as one');
  assert.match(String(out[0]!.error), pattern);
  assert.ok(out[0]!.content.equals(Buffer.from(archive)), 'left as it was');
}

/**
 * A zip whose central directory names the one deflated entry of `entry` `copies` times (a classic
 * overlapping zip bomb: `copies` times the entry's size from one compressed copy).
 */
function overlappingZip(entry: Buffer, copies: number): Buffer {
  const one = writeZip([{ name: 'z', content: entry }]);
  const endAt = one.length - 22;
  const dirAt = one.readUInt32LE(endAt + 16);
  const central = one.subarray(dirAt, endAt);
  assert.equal(central.readUInt32LE(0), CENTRAL);
  const names = Array.from({ length: copies }, (_, i) => {
    const c = Buffer.from(central);
    c.write(String.fromCharCode(97 + (i % 26)), 46); // each copy its own one-letter name
    return c;
  });
  const dir = Buffer.concat(names);
  const end = Buffer.from(one.subarray(endAt));
  end.writeUInt16LE(copies, 8);
  end.writeUInt16LE(copies, 10);
  end.writeUInt32LE(dir.length, 12);
  return Buffer.concat([one.subarray(0, dirAt), dir, end]);
}

describe('unarchive: bounds', () => {
  it('zip: 16 overlapping 16 MiB entries under a 20 MiB total are refused without the memory they would take', async () => {
    const bomb = overlappingZip(Buffer.alloc(16 * MiB), 16);
    assert.ok(bomb.length < 64 * 1024, `the bomb is small (${bomb.length} bytes)`);
    const peakBefore = process.resourceUsage().maxRSS * 1024;
    const out = await unarchived({ format: 'zip', max_total_bytes: 20 * MiB }, bomb);
    const peakRise = process.resourceUsage().maxRSS * 1024 - peakBefore;
    assertRefused(out, bomb, /unarchive: the entries are larger than 20971520 bytes in all \(max_total_bytes\)/);
    assert.ok(peakRise < 64 * MiB, `the peak memory rose by ${peakRise} bytes`);
  });

  it('zip and tar: an entry above max_entry_bytes is refused by name; entries within it unarchive', async () => {
    const items = [
      { name: 'small', content: Buffer.alloc(1000, 1) },
      { name: 'big', content: Buffer.alloc(2 * MiB, 2) },
    ];
    for (const [format, archive] of [
      ['zip', writeZip(items)],
      ['tar', writeTar(items)],
    ] as const) {
      assertRefused(
        await unarchived({ format, max_entry_bytes: MiB }, archive),
        archive,
        /unarchive: entry "big" is larger than 1048576 bytes \(max_entry_bytes\)/,
      );
      const out = await unarchived({ format, max_entry_bytes: 2 * MiB }, archive);
      assert.deepEqual(
        out.map((m) => [m.getMeta('archive_filename'), m.content.length]),
        [
          ['small', 1000],
          ['big', 2 * MiB],
        ],
      );
    }
  });

  it('every format: more items than max_entries is refused; as many unarchive', async () => {
    const tarOf = (n: number) => writeTar(Array.from({ length: n }, (_, i) => ({ name: `f${i}`, content: Buffer.from('x') })));
    const zipOf = (n: number) => writeZip(Array.from({ length: n }, (_, i) => ({ name: `f${i}`, content: Buffer.from('x') })));
    const cases: [string, (n: number) => Buffer | string][] = [
      ['lines', (n) => 'x\n'.repeat(n - 1) + 'x'],
      ['binary', (n) => serializeParts(Array.from({ length: n }, () => Buffer.from('x')))],
      ['json_array', (n) => JSON.stringify(Array.from({ length: n }, (_, i) => i))],
      ['json_map', (n) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])))],
      ['json_documents', (n) => '{"a":1} '.repeat(n)],
      ['csv', (n) => 'a,b\n' + '1,2\n'.repeat(n)],
      ['tar', tarOf],
      ['zip', zipOf],
    ];
    for (const [format, archive] of cases) {
      const over = archive(101);
      assertRefused(await unarchived({ format, max_entries: 100 }, over), over, /unarchive: the archive holds more than 100 entries \(max_entries\)/);
      assert.equal((await unarchived({ format, max_entries: 100 }, archive(100))).length, 100, format);
    }
  });

  it('lines and binary: max_total_bytes counts the items', async () => {
    const text = 'abcd\n'.repeat(10);
    assertRefused(await unarchived({ format: 'lines', max_total_bytes: 39 }, text), text, /max_total_bytes/);
    assert.equal((await unarchived({ format: 'lines', max_total_bytes: 40 }, text)).length, 11);
  });

  it('lints the bounds: at least 1', () => {
    const conf = registry().get('processor', 'unarchive')!.spec.config;
    assert.deepEqual(lintValue(conf, { format: 'zip' }), []);
    assert.ok(lintValue(conf, { format: 'zip', max_entries: 0 }).some((e) => /max_entries must be at least 1/.test(e)));
  });
});
