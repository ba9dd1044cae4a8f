/**
 * Durations as Benthos reads them: Go's time.ParseDuration (`1h30m`, int64 nanoseconds) and
 * ISO 8601 periods (`P1Y2M3DT4H`, rickb777/period): added to a date by calendar when the
 * years, months, weeks and days are whole, else by their approximate length.
 */
import { daysFromCivil, civilFromDays } from './civil.js';
import { QueryError } from './errors.js';
import { Timestamp } from './timestamp.js';

const UNITS = new Map<string, bigint>([
  ['ns', 1n],
  ['us', 1000n],
  ['µs', 1000n],
  ['μs', 1000n],
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
]);
const MAX = 1n << 63n;

/** time.ParseDuration, with Go's error texts. */
export function parseGoDuration(orig: string): bigint {
  const invalid = (): QueryError => new QueryError(`time: invalid duration ${JSON.stringify(orig)}`);
  let s = orig;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid();
  let d = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || (s[0]! >= '0' && s[0]! <= '9'))) throw invalid();
    const int = /^[0-9]*/.exec(s)![0];
    s = s.slice(int.length);
    let v = int === '' ? 0n : BigInt(int);
    if (v >= MAX) throw invalid();
    let frac = '';
    let post = false;
    if (s[0] === '.') {
      frac = /^\.[0-9]*/.exec(s)![0].slice(1);
      s = s.slice(frac.length + 1);
      post = frac.length > 0;
    }
    if (int === '' && !post) throw invalid();
    let i = 0;
    while (i < s.length && (s[i] === '.' || s[i]! < '0' || s[i]! > '9')) i++;
    if (i === 0) throw new QueryError(`time: missing unit in duration ${JSON.stringify(orig)}`);
    const u = s.slice(0, i);
    s = s.slice(i);
    const unit = UNITS.get(u);
    if (unit === undefined) throw new QueryError(`time: unknown unit ${JSON.stringify(u)} in duration ${JSON.stringify(orig)}`);
    if (v > MAX / unit) throw invalid();
    v *= unit;
    if (frac !== '') {
      // Go keeps at most the digits that fit an int64 and scales by float64, truncating.
      let f = 0n;
      let scale = 1;
      for (const ch of frac) {
        if (f > (MAX - 1n) / 10n) break;
        f = f * 10n + BigInt(ch.charCodeAt(0) - 48);
        scale *= 10;
      }
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > MAX) throw invalid();
    }
    d += v;
    if (d > MAX) throw invalid();
  }
  if (neg) return -d;
  if (d > MAX - 1n) throw invalid();
  return d;
}

/** A decimal field of a period: coefficient and number of fractional digits. */
interface Dec {
  coef: bigint;
  scale: number;
}

export interface Period {
  neg: boolean;
  years: Dec;
  months: Dec;
  weeks: Dec;
  days: Dec;
  hours: Dec;
  minutes: Dec;
  seconds: Dec;
}

const ZERO: Dec = { coef: 0n, scale: 0 };

/** rickb777/period's Parse (its error texts for the common mistakes). */
export function parsePeriod(iso: string): Period {
  if (iso === '') throw new QueryError('cannot parse a blank string as a period');
  const p: Period = { neg: false, years: ZERO, months: ZERO, weeks: ZERO, days: ZERO, hours: ZERO, minutes: ZERO, seconds: ZERO };
  let rest = iso;
  if (rest[0] === '-' || rest[0] === '+') {
    p.neg = rest[0] === '-';
    rest = rest.slice(1);
  }
  if (rest === '') throw new QueryError('cannot parse a blank string as a period');
  if (rest[0] !== 'P') throw new QueryError(`${iso}: expected 'P' period mark at the start`);
  rest = rest.slice(1);
  let hms = false;
  let n = 0;
  let fraction = '';
  const seen = new Set<string>();
  while (rest !== '') {
    if (rest[0] === 'T') {
      if (hms) throw new QueryError(`${iso}: 'T' designator cannot occur more than once`);
      hms = true;
      rest = rest.slice(1);
      continue;
    }
    const m = /^-?[0-9]*(?:[.,][0-9]*)?/.exec(rest)![0];
    if (m === '' || m === '-') throw new QueryError(`${iso}: expected a number but found '${rest[0]}'`);
    if (m.length === rest.length) throw new QueryError(`${iso}: missing designator at the end`);
    const des = rest[m.length]!;
    rest = rest.slice(m.length + 1);
    const [whole, frac = ''] = m.replace(',', '.').split('.');
    const dec: Dec = { coef: BigInt((whole === '' || whole === '-' ? whole + '0' : whole) + frac), scale: frac.length };
    const field = hms
      ? ({ H: 'hours', M: 'minutes', S: 'seconds' } as const)[des as 'H']
      : ({ Y: 'years', M: 'months', W: 'weeks', D: 'days' } as const)[des as 'Y'];
    if (field === undefined) {
      if ('YMWDHS'.includes(des)) throw new QueryError(`${iso}: '${des}' designator cannot occur here`);
      throw new QueryError(`${iso}: expected 'Y', 'M', 'W', 'D', 'H', 'M', or 'S' designator`);
    }
    if (seen.has(field)) throw new QueryError(`${iso}: '${des}' designator cannot occur more than once`);
    if (fraction !== '' && dec.coef !== 0n) throw new QueryError(`${iso}: '${fraction}' & '${des}' only the last field can have a fraction`);
    seen.add(field);
    p[field] = dec;
    n++;
    if (dec.scale > 0) fraction = des;
  }
  if (n === 0) throw new QueryError(`${iso}: expected 'Y', 'M', 'W', 'D', 'H', 'M', or 'S' designator`);
  return p;
}

function fieldNanos(d: Dec, factor: bigint): bigint {
  if (d.coef === 0n) return 0n;
  for (let i = d.scale; i > 0; i--) factor /= 10n;
  return d.coef * factor;
}

const DAY_E9 = 1_000_000_000n;
/** Years of 365.2425 days and months of a twelfth of that, as the library estimates them. */
function approxDaysE9(p: Period): bigint {
  return fieldNanos(p.days, DAY_E9) + fieldNanos(p.weeks, 7n * DAY_E9) + fieldNanos(p.months, 30_436_875n * 1000n) + fieldNanos(p.years, 365_242_500n * 1000n);
}

function hmsNanos(p: Period): bigint {
  return fieldNanos(p.hours, 3_600_000_000_000n) + fieldNanos(p.minutes, 60_000_000_000n) + fieldNanos(p.seconds, 1_000_000_000n);
}

/** Period.DurationApprox in nanoseconds. */
export function periodNanos(p: Period): bigint {
  const d = approxDaysE9(p) * 86_400n + hmsNanos(p);
  return BigInt.asIntN(64, p.neg ? -d : d);
}

/** Period.AddTo: calendar arithmetic (Go's AddDate) when the date fields are whole, else the approximate duration. */
export function addPeriod(t: Timestamp, p: Period, negate: boolean): Timestamp {
  const neg = p.neg !== negate;
  const dateFields = [p.years, p.months, p.weeks, p.days];
  const calendar = dateFields.some((d) => d.coef !== 0n) && dateFields.every((d) => d.scale === 0);
  if (!calendar) {
    let d = periodNanos(p);
    if (negate) d = -d;
    return addNanos(t, d);
  }
  const sign = neg ? -1 : 1;
  const whole = (d: Dec): number => sign * Number(d.coef);
  const hms = hmsNanos(p) * BigInt(sign);
  return addNanos(addDate(t, whole(p.years), whole(p.months), 7 * whole(p.weeks) + whole(p.days)), hms);
}

export function addNanos(t: Timestamp, d: bigint): Timestamp {
  const total = BigInt(t.nsec) + d;
  const secs = total / 1_000_000_000n - (total % 1_000_000_000n < 0n ? 1n : 0n);
  const nsec = Number(total - secs * 1_000_000_000n);
  return new Timestamp(t.sec + Number(secs), nsec, t.zone);
}

/** Go's Time.AddDate: the wall clock's date moved, overflowing days and months carried, in the same zone. */
export function addDate(t: Timestamp, years: number, months: number, days: number): Timestamp {
  const off = t.zone.offsetAt(t.sec);
  const local = t.sec + off;
  const dayNum = Math.floor(local / 86400);
  const secOfDay = local - dayNum * 86400;
  const c = civilFromDays(dayNum);
  const nd = daysFromCivil(c.year + years, c.month + months, c.day + days);
  const wall = nd * 86400 + secOfDay;
  // As Go's Date: the offset in force at the guessed instant, corrected once if it differs.
  let sec = wall - t.zone.offsetAt(wall - off);
  const off2 = t.zone.offsetAt(sec);
  if (off2 !== t.zone.offsetAt(wall - off)) sec = wall - off2;
  return new Timestamp(sec, t.nsec, t.zone);
}
