/**
 * The zip format of Benthos' `archive` and `unarchive` (Go's archive/zip): each item deflated,
 * with its CRC-32 and sizes in the local header and the central directory, then the end of
 * central directory record. Reading walks the central directory, as Go's zip.Reader does, and
 * takes stored (0) and deflated (8) items; anything else (zip64, encryption) is an error.
 */
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import type { TarItem as ArchiveItem } from './tar.js';
import type { EntryBudget } from './unarchive-limits.js';

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;
/** Bit 11: names are UTF-8. */
const UTF8 = 0x0800;

/** MS-DOS date and time of `d` (local fields, as Go writes them from the UTC time). */
function dosTime(d: Date): [number, number] {
  const time = (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1);
  const date = ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate();
  return [time, date];
}

export function writeZip(items: ArchiveItem[], now = new Date()): Buffer {
  const [time, date] = dosTime(now);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const it of items) {
    const name = Buffer.from(it.name, 'utf8');
    const data = deflateRawSync(it.content);
    const crc = crc32(it.content);
    const lh = Buffer.alloc(30);
    lh.writeUInt32LE(LOCAL, 0);
    lh.writeUInt16LE(20, 4);
    lh.writeUInt16LE(UTF8, 6);
    lh.writeUInt16LE(8, 8);
    lh.writeUInt16LE(time, 10);
    lh.writeUInt16LE(date, 12);
    lh.writeUInt32LE(crc, 14);
    lh.writeUInt32LE(data.length, 18);
    lh.writeUInt32LE(it.content.length, 22);
    lh.writeUInt16LE(name.length, 26);
    locals.push(lh, name, data);
    const ch = Buffer.alloc(46);
    ch.writeUInt32LE(CENTRAL, 0);
    ch.writeUInt16LE((3 << 8) | 20, 4); // made by Unix, so the mode below is read
    ch.writeUInt16LE(20, 6);
    ch.writeUInt16LE(UTF8, 8);
    ch.writeUInt16LE(8, 10);
    ch.writeUInt16LE(time, 12);
    ch.writeUInt16LE(date, 14);
    ch.writeUInt32LE(crc, 16);
    ch.writeUInt32LE(data.length, 20);
    ch.writeUInt32LE(it.content.length, 24);
    ch.writeUInt16LE(name.length, 28);
    ch.writeUInt32LE((0o100666 << 16) >>> 0, 38);
    ch.writeUInt32LE(offset, 42);
    centrals.push(ch, name);
    offset += lh.length + name.length + data.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END, 0);
  end.writeUInt16LE(items.length, 8);
  end.writeUInt16LE(items.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/**
 * The files of a zip, each admitted by `budget` at the size it declares before it is inflated;
 * inflating stops at that size, so an entry cannot grow past what was admitted.
 */
export function readZip(b: Buffer, budget: EntryBudget): ArchiveItem[] {
  let end = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 0xffff); i--) {
    if (b.readUInt32LE(i) === END) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error('zip: not a valid zip file');
  const count = b.readUInt16LE(end + 10);
  let p = b.readUInt32LE(end + 16);
  const out: ArchiveItem[] = [];
  for (let n = 0; n < count; n++) {
    if (p + 46 > b.length || b.readUInt32LE(p) !== CENTRAL) throw new Error('zip: not a valid zip file');
    const flags = b.readUInt16LE(p + 8);
    const method = b.readUInt16LE(p + 10);
    const csize = b.readUInt32LE(p + 20);
    const usize = b.readUInt32LE(p + 24);
    const nameLen = b.readUInt16LE(p + 28);
    const extraLen = b.readUInt16LE(p + 30);
    const commentLen = b.readUInt16LE(p + 32);
    const local = b.readUInt32LE(p + 42);
    const name = b.toString('utf8', p + 46, p + 46 + nameLen);
    p += 46 + nameLen + extraLen + commentLen;
    if (flags & 0x1) throw new Error('zip: encrypted items are not supported');
    if (csize === 0xffffffff || usize === 0xffffffff || local === 0xffffffff) throw new Error('zip: zip64 archives are not supported by svc');
    if (local + 30 > b.length || b.readUInt32LE(local) !== LOCAL) throw new Error('zip: not a valid zip file');
    const start = local + 30 + b.readUInt16LE(local + 26) + b.readUInt16LE(local + 28);
    if (start + csize > b.length) throw new Error('unexpected EOF');
    const raw = b.subarray(start, start + csize);
    budget.admit(method === 0 ? csize : usize, name);
    let content: Buffer;
    if (method === 0) content = Buffer.from(raw);
    else if (method === 8) content = inflateRawSync(raw, { maxOutputLength: Math.max(usize, 1) });
    else throw new Error('zip: unsupported compression algorithm');
    out.push({ name, content });
  }
  return out;
}
