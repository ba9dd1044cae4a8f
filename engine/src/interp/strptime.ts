/**
 * strptime as Benthos' `ts_strptime` parses (itchyny/timefmt-go v0.1.6, parse.go): the C
 * conversions plus `%f`, compositions (`%F`, `%T`, `%c`...), `%z`/`%:z`/`%::z`, week-based dates
 * (`%U`/`%W` with `%Y`, `%V` with `%G`) and `%j`; its error texts. A port of its parse loop. As
 * elsewhere here, a zone name (`%Z`) other than UTC or GMT is kept with a zero offset.
 */
import { civilFromDays, daysFromCivil } from './civil.js';
import { goQuote } from './gofmt.js';
import { COMPOSITIONS, LONG_DAYS, LONG_MONTHS } from './strftime.js';
import { Timestamp, Zone } from './timestamp.js';

const SHORT_MONTHS = LONG_MONTHS.map((m) => m.slice(0, 3));
const SHORT_DAYS = LONG_DAYS.map((d) => d.slice(0, 3));

class Fail {
  constructor(readonly message: string) {}
}

const cannot = (c: string): Fail => new Fail(`cannot parse "%${c}"`);
const expected = (c: string): Fail => new Fail(`expected ${goQuote(c).replace(/^"(.*)"$/, "'$1'")}`);
const zForm = (colons: number): string => '%' + '::z'.slice(2 - colons);

/** Parses `source` with a strptime format; throws an Error with timefmt's text. */
export function strptime(source: string, format: string): Timestamp {
  try {
    return parse(source, format);
  } catch (e) {
    if (e instanceof Fail) throw new Error(`failed to parse ${goQuote(source)} with ${goQuote(format)}: ${e.message}`);
    throw e;
  }
}

function parse(source: string, format: string): Timestamp {
  let [year, month, day, hour, min, sec, nsec] = [1900, 1, 0, 0, 0, 0, 0];
  let [j, week, weekday, yday, colons] = [0, 0, 0, 0, 0];
  let century = -1;
  let weekstart = -1;
  let pm = false;
  let hasISOYear = false;
  let hasZoneName = false;
  let zoneName = '';
  let offset = 0;
  let pending = '';
  const l = source.length;

  const number = (size: number, lo: number, hi: number, c: string): number => {
    const end = Math.min(j + size, l);
    let i = j;
    let v = 0;
    while (i < end && source[i]! >= '0' && source[i]! <= '9') v = v * 10 + (source.charCodeAt(i++) & 0x0f);
    if (i === j || v < lo || v > hi) throw cannot(c);
    j = i;
    return v;
  };
  /** A number for %z: its value and where it ended, never failing (timefmt checks the length). */
  const zNumber = (at: number, size: number, hi: number): [number, number] => {
    const end = Math.min(at + size, l);
    let i = at;
    let v = 0;
    while (i < end && source[i]! >= '0' && source[i]! <= '9') v = v * 10 + (source.charCodeAt(i++) & 0x0f);
    if (i === at || v > hi) return [0, 0];
    return [v, i];
  };
  const any = (names: string[], c: string): number => {
    outer: for (let k = 0; k < names.length; k++) {
      const x = names[k]!;
      if (j + x.length > l) continue;
      for (let m = 0; m < x.length; m++) {
        if (x[m] !== source[j + m] && (x.charCodeAt(m) | 0x20) !== (source.charCodeAt(j + m) | 0x20)) continue outer;
      }
      j += x.length;
      return k + 1;
    }
    throw cannot(c);
  };
  const skipSpace = (): void => {
    if (j < l && source[j] === ' ') j++;
  };

  for (let i = 0; i < format.length; i++) {
    let b = format[i]!;
    if (b !== '%') {
      if (j >= l || source[j] !== b) throw expected(b);
      j++;
      continue;
    }
    if (++i === format.length) throw new Fail('stray "%"');
    b = format[i]!;
    for (;;) {
      let again = false;
      switch (b) {
        case 'Y':
          year = number(4, 0, 9999, b);
          break;
        case 'y':
          year = number(2, 0, 99, b);
          year += year < 69 ? 2000 : 1900;
          break;
        case 'C':
          century = number(2, 0, 99, b);
          break;
        case 'g':
          year = number(2, 0, 99, b) + 2000;
          hasISOYear = true;
          break;
        case 'G':
          year = number(4, 0, 9999, b);
          hasISOYear = true;
          break;
        case 'm':
          month = number(2, 1, 12, b);
          break;
        case 'B':
          month = any(LONG_MONTHS, b);
          break;
        case 'b':
        case 'h':
          month = any(SHORT_MONTHS, b);
          break;
        case 'A':
          weekday = any(LONG_DAYS, b);
          break;
        case 'a':
          weekday = any(SHORT_DAYS, b);
          break;
        case 'w':
          weekday = number(1, 0, 6, b) + 1;
          break;
        case 'u':
          weekday = (number(1, 1, 7, b) % 7) + 1;
          break;
        case 'V':
          week = number(2, 1, 53, b);
          weekstart = 4;
          if (weekday === 0) weekday = 2;
          break;
        case 'U':
          week = number(2, 0, 53, b);
          weekstart = 0;
          if (weekday === 0) weekday = 1;
          break;
        case 'W':
          week = number(2, 0, 53, b);
          weekstart = 1;
          if (weekday === 0) weekday = 2;
          break;
        case 'e':
          skipSpace();
          day = number(2, 1, 31, b);
          break;
        case 'd':
          day = number(2, 1, 31, b);
          break;
        case 'j':
          yday = number(3, 1, 366, b);
          break;
        case 'k':
          skipSpace();
          hour = number(2, 0, 23, b);
          break;
        case 'H':
          hour = number(2, 0, 23, b);
          break;
        case 'l':
        case 'I':
          if (b === 'l') skipSpace();
          hour = number(2, 1, 12, b);
          if (hour === 12) hour = 0;
          break;
        case 'P':
        case 'p':
          pm = any(['AM', 'PM'], b) === 2;
          break;
        case 'M':
          min = number(2, 0, 59, b);
          break;
        case 'S':
          sec = number(2, 0, 60, b);
          break;
        case 's': {
          const unix = number(10, 0, Number.MAX_SAFE_INTEGER, b);
          const days = Math.floor(unix / 86400);
          const c = civilFromDays(days);
          [year, month, day] = [c.year, c.month + 1, c.day];
          const rest = unix - days * 86400;
          [hour, min, sec] = [Math.floor(rest / 3600), Math.floor((rest % 3600) / 60), rest % 60];
          break;
        }
        case 'f': {
          const at = j;
          let usec = number(6, 0, 999999, b);
          for (let k = j - at; k < 6; k++) usec *= 10;
          nsec = usec * 1000;
          break;
        }
        case 'Z': {
          const at = j;
          while (j < l && source[j]! >= 'A' && source[j]! <= 'Z') j++;
          const name = source.slice(at, j);
          // Go's "MST" layout: three letters, or four or five ending in T
          if (!(name.length === 3 || ((name.length === 4 || name.length === 5) && name.endsWith('T')))) {
            throw new Fail(`cannot parse ${goQuote(name)} with "%Z"`);
          }
          zoneName = name === 'UTC' || name === 'GMT' ? '' : name;
          if (name === 'UTC' || name === 'GMT') offset = 0;
          hasZoneName = true;
          break;
        }
        case 'z': {
          if (j >= l) throw new Fail(`cannot parse "${zForm(colons)}"`);
          const s = source[j];
          if (s === 'Z') {
            [offset, zoneName, colons] = [0, '', 0];
            j++;
            break;
          }
          if (s !== '+' && s !== '-') throw new Fail(`cannot parse "${zForm(colons)}"`);
          const sign = s === '-' ? -1 : 1;
          let at = j;
          const [h, hEnd] = zNumber(j + 1, 2, 23);
          if (hEnd !== at + 3) throw new Fail(`cannot parse "${zForm(colons)}"`);
          j = hEnd;
          if (j >= l || source[j] !== ':') {
            if (colons > 0) throw new Fail(`expected ':' for "${zForm(colons)}"`);
          } else {
            j++;
            if (colons === 0) colons = 4;
          }
          at = j;
          let [m, mEnd] = zNumber(j, 2, 59);
          let ss = 0;
          if (mEnd !== at + 2) {
            if (colons > 0) throw new Fail(`cannot parse "${zForm(colons & 3)}"`);
            m = 0;
            mEnd = at;
            j = at;
          } else {
            j = mEnd;
            if (colons > 1) {
              if (j >= l || source[j] !== ':') {
                if (colons === 2) throw new Fail(`expected ':' for "${zForm(colons)}"`);
              } else {
                const sAt = j;
                const [sv, sEnd] = zNumber(j + 1, 2, 59);
                if (sEnd !== sAt + 3) {
                  if (colons === 2) throw new Fail(`cannot parse "${zForm(colons)}"`);
                } else {
                  [ss, j] = [sv, sEnd];
                }
              }
            }
          }
          if (!hasZoneName) zoneName = '';
          offset = sign * ((h * 60 + m) * 60 + ss);
          colons = 0;
          break;
        }
        case ':':
          if (pending !== '') {
            if (j >= l || source[j] !== b) throw expected(b);
            j++;
          } else {
            for (colons = 1; colons <= 2; colons++) {
              if (++i === format.length) break;
              b = format[i]!;
              if (b === 'z') break;
              if (b !== ':' || colons === 2) break;
            }
            if (b === 'z' && i < format.length) {
              again = true;
              break;
            }
            throw new Fail(`expected 'z' after "${'%' + '::'.slice(2 - colons)}"`);
          }
          break;
        case 't':
        case 'n': {
          const at = j;
          while (j < l && ' \t\n\v\f\r'.includes(source[j]!)) j++;
          if (at === j) throw new Fail(`expected a space for "%${b}"`);
          break;
        }
        case '%':
          if (j >= l || source[j] !== b) throw expected(b);
          j++;
          break;
        default:
          if (pending === '') {
            const comp = COMPOSITIONS[b];
            if (comp !== undefined) {
              pending = comp;
              break;
            }
            throw new Fail(`unexpected format "%${b}"`);
          }
          if (j >= l || source[j] !== b) throw expected(b);
          j++;
      }
      if (again) continue;
      if (pending !== '') {
        [b, pending] = [pending[0]!, pending.slice(1)];
        continue;
      }
      break;
    }
  }
  if (j < l) throw new Fail(`unparsed string ${goQuote(source.slice(j))}`);
  if (pm) hour += 12;
  if (century >= 0) year = century * 100 + (year % 100);
  let days: number;
  if (day === 0 && yday > 0) {
    if (hasISOYear) throw new Fail('use "%Y" to parse non-ISO year for "%j"');
    days = daysFromCivil(year, 0, yday);
  } else if (day === 0 && weekstart >= 0) {
    if (weekstart === 4) {
      if (!hasISOYear) throw new Fail('use "%G" to parse ISO year for "%V"');
    } else if (hasISOYear) throw new Fail('use "%Y" to parse non-ISO year for "%U" or "%W"');
    if (weekstart > 0 && weekday === 1) week++;
    const d0 = daysFromCivil(year, 0, -weekstart);
    const wd = (((d0 + 4) % 7) + 7) % 7;
    days = d0 + week * 7 - wd + weekday - 1;
  } else {
    days = daysFromCivil(year, month - 1, day === 0 ? 1 : day);
  }
  const local = days * 86400 + hour * 3600 + min * 60 + sec;
  const zone = offset === 0 && zoneName === '' ? Zone.UTC : Zone.fixedOffset(offset, zoneName);
  return new Timestamp(local - offset, nsec, zone);
}
