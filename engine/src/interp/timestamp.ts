import { existsSync } from 'node:fs';
import { type TzData, loadLocalTzData, loadTzData } from './tzif.js';
import { civilFromDays, daysFromCivil } from './civil.js';
/**
 * Timestamps with nanosecond precision and a zone, formatted and parsed with Go reference
 * layouts (`2006-01-02T15:04:05Z07:00`), because Bloblang's `ts_format` / `ts_parse` take
 * Go layouts and configs written for Benthos must keep working unchanged.
 */

/**
 * A time zone: fixed offset, an IANA name, or the process-local zone. Named and local zones read
 * the system's TZif data (as Go does) and fall back to Intl where there is none.
 */
export class Zone {
  private static readonly cache = new Map<string, Zone>();
  static readonly UTC = new Zone('UTC', 0);
  static readonly Local = new Zone('Local', undefined, undefined, true);

  private fmt: Intl.DateTimeFormat | undefined;
  /** The zone's TZif data: undefined until looked up, null when there is none. */
  private tz: TzData | null | undefined;

  private constructor(
    readonly name: string,
    private readonly fixed?: number,
    private readonly iana?: string,
    private readonly local = false,
  ) {}

  /** A zone with a fixed offset in seconds east of UTC (parsed `-07:00`). */
  static fixedOffset(seconds: number, name = ''): Zone {
    if (seconds === 0 && name === '') return Zone.UTC;
    return new Zone(name, seconds);
  }

  /** Loads `UTC`, `Local` or an IANA zone name; throws on an unknown name. */
  static load(name: string): Zone {
    if (name === '' || name === 'UTC') return Zone.UTC;
    if (name === 'Local') return Zone.Local;
    let z = Zone.cache.get(name);
    if (z === undefined) {
      const tz = loadTzData(name);
      if (tz === undefined) {
        // Without zoneinfo files on this system, Intl decides which names exist.
        if (hasZoneinfo()) throw new Error(`unknown time zone ${name}`);
        try {
          new Intl.DateTimeFormat('en-US', { timeZone: name });
        } catch {
          throw new Error(`unknown time zone ${name}`);
        }
      }
      z = new Zone(name, undefined, name);
      z.tz = tz ?? null;
      Zone.cache.set(name, z);
    }
    return z;
  }

  /** Offset in seconds east of UTC at the instant `sec` (unix seconds). */
  private tzData(): TzData | null {
    if (this.tz === undefined) this.tz = (this.local ? loadLocalTzData() : this.iana !== undefined ? loadTzData(this.iana) : undefined) ?? null;
    return this.tz;
  }

  offsetAt(sec: number): number {
    if (this.fixed !== undefined) return this.fixed;
    const tz = this.tzData();
    if (tz !== null) return tz.lookup(Math.floor(sec)).off;
    const ms = sec * 1000;
    if (this.local) return -new Date(ms).getTimezoneOffset() * 60;
    const parts = this.formatter().formatToParts(new Date(ms));
    const get = (t: string): number => Number(parts.find((p) => p.type === t)?.value ?? 0);
    const h = get('hour') % 24;
    const asUTC = Date.UTC(get('year'), get('month') - 1, get('day'), h, get('minute'), get('second'));
    return Math.round((asUTC - Math.floor(ms / 1000) * 1000) / 1000);
  }

  /** The zone abbreviation at `sec` (`MST`, `CET`, or `+0300` style when none is known). */
  abbrevAt(sec: number): string {
    // A fixed zone without a name: Go's "MST" prints the offset as -0700 (always four digits).
    if (this.fixed !== undefined) return this.name !== '' ? this.name : this.fixed === 0 ? 'UTC' : offsetName(this.fixed, true);
    const tz = this.tzData();
    if (tz !== null) return tz.lookup(Math.floor(sec)).abbr;
    if (this.local && process.env.TZ === '') return 'UTC';
    const opts: Intl.DateTimeFormatOptions = { timeZoneName: 'short' };
    if (!this.local) opts.timeZone = this.iana;
    const part = new Intl.DateTimeFormat('en-US', opts).formatToParts(new Date(sec * 1000)).find((p) => p.type === 'timeZoneName');
    const v = part?.value ?? '';
    if (v === '' || v.startsWith('GMT')) {
      const off = this.offsetAt(sec);
      return off === 0 ? 'UTC' : offsetName(off);
    }
    return v;
  }

  private formatter(): Intl.DateTimeFormat {
    return (this.fmt ??= new Intl.DateTimeFormat('en-US', {
      timeZone: this.iana,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    }));
  }
}

let zoneinfoExists: boolean | undefined;

function hasZoneinfo(): boolean {
  return (zoneinfoExists ??= existsSync(process.env.ZONEINFO ?? '/usr/share/zoneinfo'));
}

/** `-08` / `+0530` as tzdata abbreviates a zone without a name; `-0800` with `minutes` (Go's fallback). */
function offsetName(off: number, minutes = false): string {
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  return `${sign}${pad(Math.floor(a / 3600), 2)}${minutes || a % 3600 ? pad(Math.floor((a % 3600) / 60), 2) : ''}`;
}

/** An instant: unix seconds plus nanoseconds, shown in a zone. */
export class Timestamp {
  constructor(
    readonly sec: number,
    readonly nsec: number,
    readonly zone: Zone = Zone.UTC,
  ) {}

  static fromMillis(ms: number, zone: Zone = Zone.Local): Timestamp {
    const sec = Math.floor(ms / 1000);
    return new Timestamp(sec, Math.round((ms - sec * 1000) * 1e6), zone);
  }

  /** Unix seconds as a possibly fractional number (Bloblang coerces numbers to timestamps this way). */
  static fromUnix(n: number, zone: Zone = Zone.Local): Timestamp {
    // As Go's time.Unix(int64(s), int64(frac * 1e9)): the fraction truncates (3.14159 is .141589999).
    // int64(s) of a float beyond int64 (or NaN) is the smallest int64 on amd64, where Benthos runs.
    if (!(Math.abs(n) < 2 ** 63)) return new Timestamp(-(2 ** 63), 0, zone);
    const sec = Math.trunc(n);
    let nsec = Math.trunc((n - sec) * 1e9);
    let s = sec;
    if (nsec < 0) {
      nsec += 1e9;
      s -= 1;
    }
    return new Timestamp(s, nsec, zone);
  }

  static now(): Timestamp {
    const ns = process.hrtime.bigint() - HR_START + NOW_START_NS;
    return new Timestamp(Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n), Zone.Local);
  }

  in(zone: Zone): Timestamp {
    return new Timestamp(this.sec, this.nsec, zone);
  }

  unixNano(): bigint {
    return BigInt(this.sec) * 1_000_000_000n + BigInt(this.nsec);
  }

  equals(o: Timestamp): boolean {
    return this.sec === o.sec && this.nsec === o.nsec;
  }

  toRFC3339Nano(): string {
    return formatTime(this, RFC3339_NANO);
  }

  /** Timestamps serialise as RFC 3339 strings, as Bloblang does when it writes JSON. */
  toJSON(): string {
    return this.toRFC3339Nano();
  }
}

const NOW_START_NS = BigInt(Date.now()) * 1_000_000n;
const HR_START = process.hrtime.bigint();

export const RFC3339_NANO = '2006-01-02T15:04:05.999999999Z07:00';

// ---------------------------------------------------------------------------
// Go layout chunks

type Std =
  | 'Jan'
  | 'January'
  | 'Mon'
  | 'Monday'
  | 'MST'
  | '01'
  | '1'
  | '02'
  | '_2'
  | '2'
  | '__2'
  | '002'
  | '15'
  | '03'
  | '3'
  | '04'
  | '4'
  | '05'
  | '5'
  | '2006'
  | '06'
  | 'PM'
  | 'pm'
  | 'Z070000'
  | 'Z07:00:00'
  | 'Z0700'
  | 'Z07:00'
  | 'Z07'
  | '-070000'
  | '-07:00:00'
  | '-0700'
  | '-07:00'
  | '-07'
  | 'frac0'
  | 'frac9';

interface Chunk {
  lit: string;
  std?: Std;
  /** Fractional digits for frac0 / frac9, and the separator ('.' or ','). */
  digits?: number;
  sep?: string;
}

const layoutCache = new Map<string, Chunk[]>();

function isDigitAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
}

/** Splits a Go layout into literal text and standard chunks (Go's nextStdChunk). */
function chunks(layout: string): Chunk[] {
  let cached = layoutCache.get(layout);
  if (cached) return cached;
  const out: Chunk[] = [];
  let lit = '';
  const push = (std: Std, len: number, i: number, extra?: Partial<Chunk>): number => {
    out.push({ lit, std, ...extra });
    lit = '';
    return i + len;
  };
  let i = 0;
  while (i < layout.length) {
    const rest = layout.slice(i);
    const c = layout[i]!;
    let next = -1;
    switch (c) {
      case 'J':
        if (rest.startsWith('January')) next = push('January', 7, i);
        else if (rest.startsWith('Jan')) next = push('Jan', 3, i);
        break;
      case 'M':
        if (rest.startsWith('Monday')) next = push('Monday', 6, i);
        else if (rest.startsWith('Mon')) next = push('Mon', 3, i);
        else if (rest.startsWith('MST')) next = push('MST', 3, i);
        break;
      case '0':
        if (rest.startsWith('002')) next = push('002', 3, i);
        else if (rest.length > 1 && rest[1]! >= '1' && rest[1]! <= '6') next = push(('0' + rest[1]) as Std, 2, i);
        break;
      case '1':
        if (rest.startsWith('15')) next = push('15', 2, i);
        else next = push('1', 1, i);
        break;
      case '2':
        if (rest.startsWith('2006')) next = push('2006', 4, i);
        else next = push('2', 1, i);
        break;
      case '_':
        if (rest.startsWith('_2')) {
          if (rest.startsWith('_2006')) {
            lit += '_';
            next = push('2006', 4, i + 1);
          } else next = push('_2', 2, i);
        } else if (rest.startsWith('__2')) next = push('__2', 3, i);
        break;
      case '3':
      case '4':
      case '5':
        next = push(c as Std, 1, i);
        break;
      case 'P':
        if (rest.startsWith('PM')) next = push('PM', 2, i);
        break;
      case 'p':
        if (rest.startsWith('pm')) next = push('pm', 2, i);
        break;
      case '-':
      case 'Z': {
        for (const z of ['070000', '07:00:00', '0700', '07:00', '07']) {
          if (rest.startsWith(c + z)) {
            next = push((c + z) as Std, z.length + 1, i);
            break;
          }
        }
        break;
      }
      case '.':
      case ',':
        if (rest.length > 1 && (rest[1] === '0' || rest[1] === '9')) {
          const ch = rest[1]!;
          let j = 1;
          while (j < rest.length && rest[j] === ch) j++;
          if (!isDigitAt(rest, j)) next = push(ch === '0' ? 'frac0' : 'frac9', j, i, { digits: j - 1, sep: c });
        }
        break;
    }
    if (next === -1) {
      lit += c;
      i++;
    } else {
      i = next;
    }
  }
  out.push({ lit });
  cached = out;
  layoutCache.set(layout, cached);
  return cached;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function pad(n: number, w: number, ch = '0'): string {
  const s = String(n);
  return s.length >= w ? s : ch.repeat(w - s.length) + s;
}

/** Days since 1970-01-01 of a date (Date.UTC would read years 0-99 as 1900-1999). */
const utcDays = daysFromCivil;

// Go counts seconds from year -292277022399 in a uint64: a time before that wraps around to the far
// future (time.Unix of the smallest int64 formats as 292277026596-12-04T15:30:08Z), as Benthos prints.
const ABSOLUTE_TO_UNIX = 9223372028715321600n;

/** Whole days since 1970-01-01 and the seconds into that day, exact for any int64 second count. */
function daysAndSeconds(local: number): { days: number; secOfDay: number } {
  if (Math.abs(local) <= Number.MAX_SAFE_INTEGER) {
    const days = Math.floor(local / 86400);
    return { days, secOfDay: local - days * 86400 };
  }
  let s = BigInt(local);
  if (s < -ABSOLUTE_TO_UNIX) s += 2n ** 64n;
  let days = s / 86400n;
  let rem = s % 86400n;
  if (rem < 0n) {
    rem += 86400n;
    days -= 1n;
  }
  return { days: Number(days), secOfDay: Number(rem) };
}

/** Formats `t` with a Go layout. */
export function formatTime(t: Timestamp, layout: string): string {
  const off = t.zone.offsetAt(t.sec);
  const { days, secOfDay } = daysAndSeconds(t.sec + off);
  const { year, month, day, weekday } = civilFromDays(days);
  const hour = Math.floor(secOfDay / 3600);
  const min = Math.floor((secOfDay % 3600) / 60);
  const sec = secOfDay % 60;
  let out = '';
  for (const ch of chunks(layout)) {
    out += ch.lit;
    switch (ch.std) {
      case undefined:
        break;
      case 'Jan':
        out += MONTHS[month]!.slice(0, 3);
        break;
      case 'January':
        out += MONTHS[month];
        break;
      case 'Mon':
        out += DAYS[weekday]!.slice(0, 3);
        break;
      case 'Monday':
        out += DAYS[weekday];
        break;
      case 'MST':
        out += t.zone.abbrevAt(t.sec);
        break;
      case '01':
        out += pad(month + 1, 2);
        break;
      case '1':
        out += String(month + 1);
        break;
      case '02':
        out += pad(day, 2);
        break;
      case '_2':
        out += pad(day, 2, ' ');
        break;
      case '2':
        out += String(day);
        break;
      case '002':
      case '__2': {
        const yday = utcDays(year, month, day) - utcDays(year, 0, 1) + 1;
        out += pad(yday, 3, ch.std === '002' ? '0' : ' ');
        break;
      }
      case '15':
        out += pad(hour, 2);
        break;
      case '03':
        out += pad(hour % 12 === 0 ? 12 : hour % 12, 2);
        break;
      case '3':
        out += String(hour % 12 === 0 ? 12 : hour % 12);
        break;
      case '04':
        out += pad(min, 2);
        break;
      case '4':
        out += String(min);
        break;
      case '05':
        out += pad(sec, 2);
        break;
      case '5':
        out += String(sec);
        break;
      case '2006':
        out += year < 0 ? '-' + pad(-year, 4) : pad(year, 4);
        break;
      case '06':
        out += pad(((year % 100) + 100) % 100, 2);
        break;
      case 'PM':
        out += hour >= 12 ? 'PM' : 'AM';
        break;
      case 'pm':
        out += hour >= 12 ? 'pm' : 'am';
        break;
      case 'frac0':
        out += ch.sep + pad(t.nsec, 9).slice(0, ch.digits);
        break;
      case 'frac9': {
        const f = pad(t.nsec, 9).slice(0, ch.digits).replace(/0+$/, '');
        if (f !== '') out += ch.sep + f;
        break;
      }
      default: {
        // Zone offsets: Z-forms print "Z" for UTC.
        const std = ch.std;
        if (std.startsWith('Z') && off === 0) {
          out += 'Z';
          break;
        }
        const a = Math.abs(off);
        const hh = pad(Math.floor(a / 3600), 2);
        const mm = pad(Math.floor((a % 3600) / 60), 2);
        const ss = pad(a % 60, 2);
        let s = off < 0 ? '-' : '+';
        const form = std.slice(1);
        if (form === '07') s += hh;
        else if (form === '0700') s += hh + mm;
        else if (form === '07:00') s += hh + ':' + mm;
        else if (form === '070000') s += hh + mm + ss;
        else s += hh + ':' + mm + ':' + ss;
        out += s;
      }
    }
  }
  return out;
}

/** Parses `value` with a Go layout; fields absent from the layout default as Go's time.Parse does. */
export function parseTime(layout: string, value: string, defaultZone: Zone = Zone.UTC): Timestamp {
  const fail = (why = ''): never => {
    throw new Error(`parsing time ${JSON.stringify(value)} as ${JSON.stringify(layout)}: cannot parse${why ? ': ' + why : ''}`);
  };
  let year = 0; // Go: a layout without a year parses as year 0
  let month = 1;
  let day = 1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let nsec = 0;
  let pm: boolean | undefined;
  let offset: number | undefined;
  let zoneName = '';
  let yday = -1;
  let pos = 0;
  const cs = chunks(layout);

  const num = (minLen: number, maxLen: number): number => {
    let j = pos;
    while (j < value.length && j - pos < maxLen && isDigitAt(value, j)) j++;
    if (j - pos < minLen) fail();
    const n = Number(value.slice(pos, j));
    pos = j;
    return n;
  };
  const lookup = (names: string[], len?: number): number => {
    for (let k = 0; k < names.length; k++) {
      const name = len ? names[k]!.slice(0, len) : names[k]!;
      if (value.slice(pos, pos + name.length).toLowerCase() === name.toLowerCase()) {
        pos += name.length;
        return k;
      }
    }
    return fail();
  };
  const frac = (): void => {
    if ((value[pos] === '.' || value[pos] === ',') && isDigitAt(value, pos + 1)) {
      pos++;
      const start = pos;
      while (isDigitAt(value, pos)) pos++;
      nsec = Number((value.slice(start, pos) + '000000000').slice(0, 9));
    }
  };

  for (let ci = 0; ci < cs.length; ci++) {
    const ch = cs[ci]!;
    if (value.slice(pos, pos + ch.lit.length) !== ch.lit) fail();
    pos += ch.lit.length;
    switch (ch.std) {
      case undefined:
        break;
      case 'Jan':
        month = lookup(MONTHS, 3) + 1;
        break;
      case 'January':
        month = lookup(MONTHS) + 1;
        break;
      case 'Mon':
        lookup(DAYS, 3);
        break;
      case 'Monday':
        lookup(DAYS);
        break;
      case 'MST': {
        const m = /^[A-Z]{3,5}|^[+-]\d{2,4}/.exec(value.slice(pos));
        if (!m) fail();
        zoneName = m![0];
        pos += zoneName.length;
        break;
      }
      case '01':
        month = num(2, 2);
        break;
      case '1':
        month = num(1, 2);
        break;
      case '02':
        day = num(2, 2);
        break;
      case '_2':
        if (value[pos] === ' ') pos++;
        day = num(1, 2);
        break;
      case '2':
        day = num(1, 2);
        break;
      case '002':
        yday = num(3, 3);
        break;
      case '__2':
        while (value[pos] === ' ') pos++;
        yday = num(1, 3);
        break;
      case '15':
        hour = num(1, 2);
        break;
      case '03':
        hour = num(2, 2);
        break;
      case '3':
        hour = num(1, 2);
        break;
      case '04':
        min = num(2, 2);
        break;
      case '4':
        min = num(1, 2);
        break;
      case '05':
      case '5':
        sec = num(ch.std === '05' ? 2 : 1, 2);
        // Go accepts a fractional second after the seconds even when the layout has none.
        {
          const nx = cs[ci + 1];
          if (!(nx && nx.lit === '' && (nx.std === 'frac0' || nx.std === 'frac9'))) frac();
        }
        break;
      case '2006': {
        const neg = value[pos] === '-';
        if (neg) pos++;
        year = num(4, 4) * (neg ? -1 : 1);
        break;
      }
      case '06': {
        const y = num(2, 2);
        year = y >= 69 ? 1900 + y : 2000 + y;
        break;
      }
      case 'PM':
      case 'pm': {
        const s = value.slice(pos, pos + 2).toUpperCase();
        if (s !== 'AM' && s !== 'PM') fail();
        pm = s === 'PM';
        pos += 2;
        break;
      }
      case 'frac0':
      case 'frac9':
        if (ch.std === 'frac0') {
          if (value[pos] !== ch.sep) fail();
          pos++;
          const start = pos;
          for (let k = 0; k < ch.digits!; k++) if (!isDigitAt(value, pos++)) fail();
          nsec = Number((value.slice(start, pos) + '000000000').slice(0, 9));
        } else {
          frac();
        }
        break;
      default: {
        const std = ch.std;
        if (std.startsWith('Z') && value[pos] === 'Z') {
          pos++;
          offset = 0;
          zoneName = 'UTC';
          break;
        }
        const sign = value[pos];
        if (sign !== '+' && sign !== '-') fail();
        pos++;
        const form = std.slice(1);
        const hh = num(2, 2);
        let mm = 0;
        let ss = 0;
        if (form !== '07') {
          if (form.includes(':')) {
            if (value[pos] !== ':') fail();
            pos++;
          }
          mm = num(2, 2);
          if (form.length > 5) {
            if (form.includes(':')) {
              if (value[pos] !== ':') fail();
              pos++;
            }
            ss = num(2, 2);
          }
        }
        offset = (sign === '-' ? -1 : 1) * (hh * 3600 + mm * 60 + ss);
      }
    }
  }
  if (pos !== value.length) fail(`extra text: ${JSON.stringify(value.slice(pos))}`);
  if (pm !== undefined) {
    if (hour > 12) fail('hour out of range');
    if (pm && hour < 12) hour += 12;
    else if (!pm && hour === 12) hour = 0;
  }
  if (month < 1 || month > 12) fail('month out of range');
  if (day < 1 || day > 31 || hour > 23 || min > 59 || sec > 59) fail('value out of range');
  let base: number;
  if (yday > 0) base = utcDays(year, 0, 1) * 86400 + (yday - 1) * 86400;
  else {
    const dt = new Date(0);
    dt.setUTCFullYear(year, month - 1, day);
    if (dt.getUTCDate() !== day) fail('day out of range');
    base = Math.floor(dt.getTime() / 1000);
  }
  const local = base + hour * 3600 + min * 60 + sec;
  if (offset !== undefined) {
    return new Timestamp(
      local - offset,
      nsec,
      offset === 0 && zoneName !== '' && zoneName !== 'UTC' ? Zone.fixedOffset(0, zoneName) : Zone.fixedOffset(offset),
    );
  }
  if (zoneName !== '') {
    if (zoneName === 'UTC' || zoneName === 'GMT') return new Timestamp(local, nsec, Zone.UTC);
    return new Timestamp(local, nsec, Zone.fixedOffset(0, zoneName));
  }
  // No zone in the value: interpret the wall clock in the default zone.
  let utc = local - defaultZone.offsetAt(local);
  utc = local - defaultZone.offsetAt(utc);
  return new Timestamp(utc, nsec, defaultZone);
}
