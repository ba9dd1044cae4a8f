/**
 * The tar format of Benthos' `archive` and `unarchive` (Go's archive/tar): USTAR headers of 512
 * bytes, contents padded to 512, two zero blocks at the end. Written as Go writes a header from
 * `tar.FileInfoHeader` (mode 0666, the time of archiving); read back with the PAX (`x`) and GNU
 * (`L`) long names Go's reader understands.
 */
import type { EntryBudget } from './unarchive-limits.js';

const BLOCK = 512;

export interface TarItem {
  name: string;
  content: Buffer;
}

function octal(buf: Buffer, value: number, off: number, len: number): void {
  buf.write(value.toString(8).padStart(len - 1, '0') + '\0', off, len, 'ascii');
}

function header(name: string, size: number, mtime: number, type = '0'): Buffer {
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 100, 'utf8');
  octal(h, 0o666, 100, 8);
  octal(h, 0, 108, 8);
  octal(h, 0, 116, 8);
  octal(h, size, 124, 12);
  octal(h, mtime, 136, 12);
  h.write(type, 156, 1, 'ascii');
  h.write('ustar\x0000', 257, 8, 'binary');
  h.fill(0x20, 148, 156); // the checksum counts its own field as spaces
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'ascii');
  return h;
}

function pad(n: number): Buffer {
  return Buffer.alloc((BLOCK - (n % BLOCK)) % BLOCK);
}

/** A PAX record `"<len> path=<name>\n"`, its length counting itself. */
function paxPath(name: string): Buffer {
  const body = ` path=${name}\n`;
  const n = Buffer.byteLength(body);
  let len = n + String(n).length;
  if (String(len).length > String(n).length) len = n + String(len).length;
  return Buffer.from(`${len}${body}`, 'utf8');
}

export function writeTar(items: TarItem[], now = Math.floor(Date.now() / 1000)): Buffer {
  const parts: Buffer[] = [];
  for (const it of items) {
    if (Buffer.byteLength(it.name) > 100) {
      const rec = paxPath(it.name);
      parts.push(header('PaxHeaders.0/' + it.name.slice(0, 50), rec.length, now, 'x'), rec, pad(rec.length));
    }
    parts.push(header(it.name, it.content.length, now), it.content, pad(it.content.length));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

function cString(b: Buffer, off: number, len: number): string {
  const end = b.indexOf(0, off);
  return b.toString('utf8', off, end < 0 || end > off + len ? off + len : end);
}

function readOctal(b: Buffer, off: number, len: number): number {
  const text = cString(b, off, len).trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new Error('archive/tar: invalid tar header');
  return parseInt(text, 8);
}

/** The files of a tar, each admitted by `budget` before its content is copied out of `b`. */
export function readTar(b: Buffer, budget: EntryBudget): TarItem[] {
  const out: TarItem[] = [];
  let off = 0;
  let longName: string | undefined;
  while (off + BLOCK <= b.length) {
    const h = b.subarray(off, off + BLOCK);
    if (h.every((x) => x === 0)) break;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i]!;
    if (readOctal(h, 148, 8) !== sum) throw new Error('archive/tar: invalid tar header');
    const size = readOctal(h, 124, 12);
    const type = String.fromCharCode(h[156]!);
    const start = off + BLOCK;
    if (start + size > b.length) throw new Error('unexpected EOF');
    const body = b.subarray(start, start + size);
    off = start + size + pad(size).length;
    if (type === 'x') {
      const m = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'));
      if (m) longName = m[1];
      continue;
    }
    if (type === 'L') {
      longName = cString(body, 0, body.length);
      continue;
    }
    if (type === 'g') continue;
    const prefix = h.toString('binary', 257, 263) === 'ustar\x00' ? cString(h, 345, 155) : '';
    const name = longName ?? (prefix ? `${prefix}/${cString(h, 0, 100)}` : cString(h, 0, 100));
    longName = undefined;
    budget.admit(body.length, name);
    out.push({ name, content: Buffer.from(body) });
  }
  if (off + BLOCK > b.length && out.length === 0 && b.length > 0) throw new Error('unexpected EOF');
  return out;
}
