/**
 * IANA zone data read from the system's TZif files (/usr/share/zoneinfo), the same data Go's
 * time package loads: offsets and, what Intl cannot give, the abbreviations Go prints for `MST`
 * in a layout (`BST`, `EDT` in 1958, `ACDT`, `GMT`, or `+0530`-less names such as `IST`).
 * Times after the last transition follow the file's POSIX TZ footer, as Go's tzset does.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { civilFromDays, daysFromCivil } from './civil.js';

interface ZoneType {
  off: number;
  dst: boolean;
  abbr: string;
}

/** The offset and abbreviation in force at an instant. */
export interface ZoneInfo {
  off: number;
  abbr: string;
}

export class TzData {
  constructor(
    private readonly when: number[],
    private readonly idx: number[],
    private readonly types: ZoneType[],
    private readonly rule: PosixRule | undefined,
  ) {}

  lookup(sec: number): ZoneInfo {
    const { when, idx, types } = this;
    if (when.length === 0 || sec < when[0]!) {
      if (when.length === 0 && this.rule) return this.rule.at(sec);
      const t = types[this.firstZone()]!;
      return { off: t.off, abbr: t.abbr };
    }
    if (sec >= when[when.length - 1]! && this.rule) return this.rule.at(sec);
    let lo = 0;
    let hi = when.length;
    while (hi - lo > 1) {
      const m = (lo + hi) >> 1;
      if (sec < when[m]!) hi = m;
      else lo = m;
    }
    const t = types[idx[lo]!]!;
    return { off: t.off, abbr: t.abbr };
  }

  /** Go's lookupFirstZone: the zone before the first transition. */
  private firstZone(): number {
    if (!this.idx.includes(0)) return 0;
    if (this.idx.length > 0 && this.types[this.idx[0]!]!.dst) {
      for (let zi = this.idx[0]! - 1; zi >= 0; zi--) if (!this.types[zi]!.dst) return zi;
    }
    const zi = this.types.findIndex((t) => !t.dst);
    return zi < 0 ? 0 : zi;
  }
}

const cache = new Map<string, TzData | null>();

/** The zone named `name` from the zoneinfo directory, or undefined when there is no such file. */
export function loadTzData(name: string): TzData | undefined {
  let d = cache.get(name);
  if (d === undefined) {
    d = null;
    if (!name.split('/').includes('..') && !path.isAbsolute(name)) {
      const dir = process.env.ZONEINFO ?? '/usr/share/zoneinfo';
      d = readTzif(path.join(dir, name)) ?? null;
    }
    cache.set(name, d);
  }
  return d ?? undefined;
}

/** The process-local zone as Go finds it: $TZ (empty is UTC), else /etc/localtime. */
export function loadLocalTzData(): TzData | undefined {
  const tz = process.env.TZ;
  if (tz !== undefined) return tz === '' ? undefined : loadTzData(tz.replace(/^:/, ''));
  let d = cache.get('\0local');
  if (d === undefined) {
    d = readTzif('/etc/localtime') ?? null;
    cache.set('\0local', d);
  }
  return d ?? undefined;
}

export function readTzif(file: string): TzData | undefined {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch {
    return undefined;
  }
  if (buf.length < 44 || buf.toString('latin1', 0, 4) !== 'TZif') return undefined;
  const version = buf[4]!;
  const counts = (at: number): number[] => [0, 1, 2, 3, 4, 5].map((k) => buf.readUInt32BE(at + 20 + 4 * k));
  let at = 0;
  let [isut, isstd, leap, timecnt, typecnt, charcnt] = counts(at) as [number, number, number, number, number, number];
  let size = 4;
  if (version >= 0x32) {
    // Skip the 32-bit block: the 64-bit one after it covers every year.
    at += 44 + timecnt * 4 + timecnt + typecnt * 6 + charcnt + leap * 8 + isstd + isut;
    [isut, isstd, leap, timecnt, typecnt, charcnt] = counts(at) as [number, number, number, number, number, number];
    size = 8;
  }
  let p = at + 44;
  const when: number[] = [];
  for (let i = 0; i < timecnt; i++, p += size) when.push(size === 8 ? Number(buf.readBigInt64BE(p)) : buf.readInt32BE(p));
  const idx: number[] = [];
  for (let i = 0; i < timecnt; i++) idx.push(buf[p++]!);
  const raw: { off: number; dst: boolean; ai: number }[] = [];
  for (let i = 0; i < typecnt; i++, p += 6) raw.push({ off: buf.readInt32BE(p), dst: buf[p + 4] !== 0, ai: buf[p + 5]! });
  const chars = buf.toString('latin1', p, p + charcnt);
  p += charcnt + leap * (size + 4) + isstd + isut;
  const types = raw.map((t) => ({ off: t.off, dst: t.dst, abbr: chars.slice(t.ai, chars.indexOf('\0', t.ai) < 0 ? undefined : chars.indexOf('\0', t.ai)) }));
  let rule: PosixRule | undefined;
  if (version >= 0x32 && buf[p] === 0x0a) {
    const end = buf.indexOf(0x0a, p + 1);
    if (end > p + 1) rule = PosixRule.parse(buf.toString('latin1', p + 1, end));
  }
  return new TzData(when, idx, types, rule);
}

interface RuleDate {
  kind: 'J' | 'N' | 'M';
  day: number;
  week: number;
  mon: number;
  /** Seconds after local midnight. */
  time: number;
}

/** A POSIX TZ string (`GMT0BST,M3.5.0/1,M10.5.0`): a standard zone and an optional yearly DST rule. */
class PosixRule {
  private constructor(
    private readonly std: ZoneInfo,
    private readonly dst: ZoneInfo | undefined,
    private readonly start: RuleDate | undefined,
    private readonly end: RuleDate | undefined,
  ) {}

  static parse(s: string): PosixRule | undefined {
    let i = 0;
    const name = (): string | undefined => {
      if (s[i] === '<') {
        const e = s.indexOf('>', i);
        if (e < 0) return undefined;
        const n = s.slice(i + 1, e);
        i = e + 1;
        return n;
      }
      const m = /^[A-Za-z]{3,}/.exec(s.slice(i));
      if (!m) return undefined;
      i += m[0].length;
      return m[0];
    };
    /** [+-]hh[:mm[:ss]] in seconds. */
    const hms = (): number | undefined => {
      const m = /^([+-]?)(\d{1,3})(?::(\d{1,2}))?(?::(\d{1,2}))?/.exec(s.slice(i));
      if (!m) return undefined;
      i += m[0].length;
      const v = Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
      return m[1] === '-' ? -v : v;
    };
    const stdName = name();
    const stdOff = hms();
    if (stdName === undefined || stdOff === undefined) return undefined;
    const std = { abbr: stdName, off: -stdOff };
    if (i >= s.length) return new PosixRule(std, undefined, undefined, undefined);
    const dstName = name();
    if (dstName === undefined) return undefined;
    let dstOff = std.off + 3600;
    if (s[i] !== ',' && i < s.length) {
      const o = hms();
      if (o === undefined) return undefined;
      dstOff = -o;
    }
    const date = (): RuleDate | undefined => {
      if (s[i] !== ',') return undefined;
      i++;
      let r: RuleDate;
      let m: RegExpExecArray | null;
      if ((m = /^J(\d+)/.exec(s.slice(i)))) r = { kind: 'J', day: Number(m[1]), week: 0, mon: 0, time: 7200 };
      else if ((m = /^M(\d+)\.(\d)\.(\d)/.exec(s.slice(i)))) r = { kind: 'M', mon: Number(m[1]), week: Number(m[2]), day: Number(m[3]), time: 7200 };
      else if ((m = /^(\d+)/.exec(s.slice(i)))) r = { kind: 'N', day: Number(m[1]), week: 0, mon: 0, time: 7200 };
      else return undefined;
      i += m[0].length;
      if (s[i] === '/') {
        i++;
        const t = hms();
        if (t === undefined) return undefined;
        r.time = t;
      }
      return r;
    };
    const start = date();
    const end = date();
    // Without a rule, Go uses the US rules of 2007 (M3.2.0,M11.1.0).
    return new PosixRule(
      std,
      { abbr: dstName, off: dstOff },
      start ?? { kind: 'M', mon: 3, week: 2, day: 0, time: 7200 },
      end ?? { kind: 'M', mon: 11, week: 1, day: 0, time: 7200 },
    );
  }

  at(sec: number): ZoneInfo {
    if (this.dst === undefined) return this.std;
    const year = civilFromDays(Math.floor((sec + this.std.off) / 86400)).year;
    const yearStart = Date.UTC(2000, 0, 1) / 1000 + yearOffset(year);
    const start = yearStart + ruleSeconds(this.start!, year) - this.std.off;
    const end = yearStart + ruleSeconds(this.end!, year) - this.dst.off;
    const inDst = start < end ? sec >= start && sec < end : !(sec >= end && sec < start);
    return inDst ? this.dst : this.std;
  }
}

function isLeap(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

/** Seconds from 2000-01-01 to January 1st of `year` (UTC). */
function yearOffset(year: number): number {
  return (daysFromCivil(year, 0, 1) - daysFromCivil(2000, 0, 1)) * 86400;
}

/** Seconds from local January 1st to the rule's transition in `year`. */
function ruleSeconds(r: RuleDate, year: number): number {
  let day: number;
  if (r.kind === 'J') {
    day = r.day - 1;
    if (isLeap(year) && r.day >= 60) day++;
  } else if (r.kind === 'N') {
    day = r.day;
  } else {
    const first = new Date(0);
    first.setUTCFullYear(year, r.mon - 1, 1);
    const yday0 = Math.round((first.getTime() - new Date(0).setUTCFullYear(year, 0, 1)) / 86400000);
    const dow1 = first.getUTCDay();
    let d = (r.day - dow1 + 7) % 7; // first matching weekday, 0-based day of month
    const monthDays = [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][r.mon - 1]!;
    for (let w = 1; w < r.week; w++) if (d + 7 < monthDays) d += 7;
    day = yday0 + d;
  }
  return day * 86400 + r.time;
}
