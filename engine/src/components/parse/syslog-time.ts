/**
 * Timestamps as the syslog parsers behind Benthos' parse_log read and write them (Go's time
 * package): a wall time with a zone offset, written as time.RFC3339Nano (fraction without
 * trailing zeros, `Z` for a zero offset).
 */

export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** Fraction digits as written (at most nine). */
  fraction: string;
  /** Offset east of UTC in minutes. */
  offset: number;
}

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');

const DAYS_IN_LEAP_YEAR = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** True when the day exists in that month (Go's time.Parse: "day out of range"). */
export function dayInRange(t: Pick<WallTime, 'year' | 'month' | 'day'>): boolean {
  const days = DAYS_IN_LEAP_YEAR[t.month - 1] ?? 0; // a leap year: Go parses Stamp with year 0
  return t.day <= (t.month === 2 && !leap(t.year) ? days - 1 : days);
}

function leap(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

/** time.RFC3339Nano. */
export function formatRfc3339Nano(t: WallTime): string {
  const frac = t.fraction.replace(/0+$/, '');
  const zone = t.offset === 0 ? 'Z' : `${t.offset < 0 ? '-' : '+'}${pad(Math.trunc(Math.abs(t.offset) / 60))}:${pad(Math.abs(t.offset) % 60)}`;
  const year = t.year < 0 ? `-${pad(t.year, 4)}` : pad(t.year, 4);
  return `${year}-${pad(t.month)}-${pad(t.day)}T${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}${frac ? '.' + frac : ''}${zone}`;
}

/** Throws a RangeError for a zone name Go's time.LoadLocation would not know. */
export function checkZone(zone: string): void {
  new Intl.DateTimeFormat('en-US', { timeZone: zone });
}

/** A UTC wall time (its day may overflow the month: Go's AddDate) seen in another zone (Go's Time.In). */
export function inZone(t: WallTime, zone: string): WallTime {
  const at = new Date(0);
  at.setUTCFullYear(t.year, t.month - 1, t.day);
  at.setUTCHours(t.hour, t.minute, t.second, 0);
  const name =
    zone === 'UTC' || zone === ''
      ? ''
      : (new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ??
        '');
  const m = /GMT([+-])(\d\d):(\d\d)/.exec(name);
  const offset = m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
  const local = new Date(at.getTime() + offset * 60_000);
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds(),
    fraction: t.fraction,
    offset,
  };
}
