/**
 * strftime as Benthos' `ts_strftime` formats (itchyny/timefmt-go v0.1.6, format.go): the C
 * conversions plus `%f` (microseconds), the flags `-` (no padding), `_` (spaces), `0` (zeros), `^`
 * (upper case), `#` (swap case), a width, and `%:z`/`%::z`/`%:::z`. A port of its AppendFormat loop,
 * kept in its shape so that its corner cases (an unknown conversion is written as it is, a
 * trailing `%` stays) come out the same.
 */
import { civilFromDays, daysFromCivil } from './civil.js';
import type { Timestamp } from './timestamp.js';

export const LONG_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
/** The compositions both directions expand (%c, %F, %T, ...), as timefmt-go's. */
export const COMPOSITIONS: Record<string, string> = {
  c: 'a b e H:M:S Y',
  '+': 'a b e H:M:S Z Y',
  F: 'Y-m-d',
  D: 'm/d/y',
  x: 'm/d/y',
  v: 'e-b-Y',
  T: 'H:M:S',
  X: 'H:M:S',
  r: 'I:M:S p',
  R: 'H:M',
};

// Go keeps the padding in one byte: the mask bit says it was set by a flag.
const MASK = 0x7f;
const NONE = 0x80; // `-`
const ZERO = 0x30;
const SPACE = 0x20;

function appendInt(num: number, width: number, padding: number): string {
  const s = String(num);
  if (padding === NONE || s.length >= width) return s;
  const p = String.fromCharCode(padding & MASK);
  if (num < 0 && p === '0') return '-' + p.repeat(width - s.length) + s.slice(1);
  return p.repeat(width - s.length) + s;
}

function appendString(str: string, width: number, padding: number, upper: boolean, swap: boolean): string {
  let out = '';
  if (width > str.length && padding !== NONE) {
    const p = padding < NONE ? ' ' : String.fromCharCode(padding & MASK);
    out = p.repeat(width - str.length);
  }
  if (swap && str.length > 1 && str.charCodeAt(1) < 0x61) return out + str.toLowerCase();
  if (swap || upper) return out + str.toUpperCase();
  return out + str;
}

/** The text from the last `%` of `format`, as timefmt writes a conversion it does not know. */
function appendLast(format: string, width: number, padding: number): string {
  const i = format.lastIndexOf('%');
  return i < 0 ? '' : appendString(format.slice(i), width, padding, false, false);
}

/** Formats `t` (in its own zone) with a strftime format. */
export function strftime(t: Timestamp, format: string): string {
  const offset = t.zone.offsetAt(t.sec);
  const local = t.sec + offset;
  const days = Math.floor(local / 86400);
  const secOfDay = local - days * 86400;
  const { year, month, day, weekday } = civilFromDays(days);
  const hour = Math.floor(secOfDay / 3600);
  const min = Math.floor((secOfDay % 3600) / 60);
  const sec = secOfDay % 60;
  const yday = days - daysFromCivil(year, 0, 1) + 1;
  const isoWeek = (): [number, number] => {
    const thursday = days - ((weekday + 6) % 7) + 3; // the Thursday of this Monday-first week
    const y = civilFromDays(thursday).year;
    return [y, Math.floor((thursday - daysFromCivil(y, 0, 1)) / 7) + 1];
  };
  // Go's t.Zone(): an offset parsed without a name has none (%Z then prints the offset)
  const zoneName = t.zone.name === '' ? '' : t.zone.abbrevAt(t.sec);

  let buf = '';
  let width = 0;
  let colons = 0;
  let padding = ZERO;
  let pending = '';
  let upper = false;
  let swap = false;
  const n = format.length;
  for (let i = 0; i < n; i++) {
    let b = format[i]!;
    if (b !== '%') {
      buf += b;
      continue;
    }
    if (++i === n) {
      buf += '%';
      break;
    }
    b = format[i]!;
    width = 0;
    padding = ZERO;
    upper = false;
    swap = false;
    for (;;) {
      let again = false; // Go's `goto L`: b changed, read it again
      let last = false; // Go's `goto K`: the format ended inside a conversion
      switch (b) {
        case '-':
          if (pending !== '') {
            buf += '-';
            break;
          }
          if (++i === n) last = true;
          else [padding, b, again] = [NONE, format[i]!, true];
          break;
        case '_':
          if (++i === n) last = true;
          else [padding, b, again] = [SPACE | NONE, format[i]!, true];
          break;
        case '^':
          if (++i === n) last = true;
          else [upper, b, again] = [true, format[i]!, true];
          break;
        case '#':
          if (++i === n) last = true;
          else [swap, b, again] = [true, format[i]!, true];
          break;
        case '0':
          if (++i === n) last = true;
          else [padding, b, again] = [ZERO | NONE, format[i]!, true];
          break;
        case '1':
        case '2':
        case '3':
        case '4':
        case '5':
        case '6':
        case '7':
        case '8':
        case '9':
          width = b.charCodeAt(0) & 0x0f;
          for (i++; i < n; i++) {
            b = format[i]!;
            if (b >= '0' && b <= '9') width = Math.min(width * 10 + (b.charCodeAt(0) & 0x0f), 1024);
            else break;
          }
          if (padding === NONE) padding = SPACE | NONE;
          if (i === n) last = true;
          else again = true;
          break;
        case 'Y':
          buf += appendInt(year, width === 0 ? 4 : width, padding);
          break;
        case 'y':
          buf += appendInt(year % 100, Math.max(width, 2), padding);
          break;
        case 'C':
          buf += appendInt(Math.trunc(year / 100), Math.max(width, 2), padding);
          break;
        case 'g':
          buf += appendInt(isoWeek()[0] % 100, Math.max(width, 2), padding);
          break;
        case 'G':
          buf += appendInt(isoWeek()[0], width === 0 ? 4 : width, padding);
          break;
        case 'm':
          buf += appendInt(month + 1, Math.max(width, 2), padding);
          break;
        case 'B':
          buf += appendString(LONG_MONTHS[month]!, width, padding, upper, swap);
          break;
        case 'b':
        case 'h':
          buf += appendString(LONG_MONTHS[month]!.slice(0, 3), width, padding, upper, swap);
          break;
        case 'A':
          buf += appendString(LONG_DAYS[weekday]!, width, padding, upper, swap);
          break;
        case 'a':
          buf += appendString(LONG_DAYS[weekday]!.slice(0, 3), width, padding, upper, swap);
          break;
        case 'w':
          buf += appendInt(weekday, width, padding);
          break;
        case 'u':
          buf += appendInt(weekday === 0 ? 7 : weekday, width, padding);
          break;
        case 'V':
          buf += appendInt(isoWeek()[1], Math.max(width, 2), padding);
          break;
        case 'U':
          buf += appendInt(Math.floor((yday + 6 - weekday) / 7), Math.max(width, 2), padding);
          break;
        case 'W': {
          let week = yday;
          if (weekday > 0) week -= weekday - 7;
          buf += appendInt(Math.floor(week / 7), Math.max(width, 2), padding);
          break;
        }
        case 'e':
          if (padding < NONE) padding = SPACE;
          buf += appendInt(day, Math.max(width, 2), padding);
          break;
        case 'd':
          buf += appendInt(day, Math.max(width, 2), padding);
          break;
        case 'j':
          buf += appendInt(yday, Math.max(width, 3), padding);
          break;
        case 'k':
          if (padding < NONE) padding = SPACE;
          buf += appendInt(hour, Math.max(width, 2), padding);
          break;
        case 'H':
          buf += appendInt(hour, Math.max(width, 2), padding);
          break;
        case 'l':
        case 'I': {
          if (b === 'l' && padding < NONE) padding = SPACE;
          const h = hour > 12 ? hour - 12 : hour === 0 ? 12 : hour;
          buf += appendInt(h, Math.max(width, 2), padding);
          break;
        }
        case 'P':
        case 'p':
          if (b === 'P') swap = !(upper || swap);
          buf += appendString(hour < 12 ? 'AM' : 'PM', width, padding, upper, swap);
          break;
        case 'M':
          buf += appendInt(min, Math.max(width, 2), padding);
          break;
        case 'S':
          buf += appendInt(sec, Math.max(width, 2), padding);
          break;
        case 's':
          if (padding < NONE) padding = SPACE;
          buf += appendInt(t.sec, width, padding);
          break;
        case 'f':
          buf += appendInt(Math.floor(t.nsec / 1000), width === 0 ? 6 : width, padding);
          break;
        case 'Z':
        case 'z':
          if (b === 'Z' && zoneName !== '') {
            buf += appendString(zoneName, width, padding, upper, swap);
          } else {
            buf += zoneOffset(offset, colons, width, padding);
          }
          colons = 0;
          break;
        case ':':
          if (pending !== '') {
            buf += ':';
          } else {
            colons = 1;
            let z = false;
            for (i++; i < n; i++) {
              const c = format[i];
              if (c === ':') colons++;
              else if (c === 'z') {
                if (colons > 3) {
                  i++;
                  break;
                }
                z = true;
                break;
              } else break;
            }
            if (z) {
              [b, again] = ['z', true];
              break;
            }
            buf += appendLast(format.slice(0, i), width, padding);
            i--;
            colons = 0;
          }
          break;
        case 't':
          buf += appendString('\t', width, padding, false, false);
          break;
        case 'n':
          buf += appendString('\n', width, padding, false, false);
          break;
        case '%':
          buf += appendString('%', width, padding, false, false);
          break;
        default:
          if (pending === '') {
            const comp = COMPOSITIONS[b];
            if (comp !== undefined) {
              pending = comp;
              swap = false;
              break;
            }
            buf += appendLast(format.slice(0, i), width - 1, padding);
          }
          buf += b;
      }
      if (last) return buf + appendLast(format, width, padding);
      if (again) continue;
      if (pending !== '') {
        [b, pending, width, padding] = [pending[0]!, pending.slice(1), 0, ZERO];
        continue;
      }
      break;
    }
  }
  return buf;
}

/** `%z`: +hhmm, with `%:z` +hh:mm, `%::z` +hh:mm:ss, `%:::z` +hh[:mm[:ss]] as needed; width pads before the sign. */
function zoneOffset(offset: number, colons: number, width: number, padding: number): string {
  let sign = '+';
  if (offset < 0) {
    sign = '-';
    offset = -offset;
  }
  let body = appendInt(Math.floor(offset / 3600), 2, padding);
  if (body.startsWith(' ')) [sign, body] = [' ' + sign, body.slice(1)]; // Go moves the sign after a pad: " +1"
  let rest = offset % 3600;
  if (colons <= 2 || rest !== 0) {
    if (colons !== 0) body += ':';
    body += appendInt(Math.floor(rest / 60), 2, ZERO);
    rest %= 60;
    if (colons === 2 || (colons === 3 && rest !== 0)) body += ':' + appendInt(rest, 2, ZERO);
  }
  let out = sign + body;
  if (padding !== NONE && width > out.length) {
    const p = String.fromCharCode(padding & MASK);
    out = p === '0' ? sign + '0'.repeat(width - out.length) + body : p.repeat(width - out.length) + out;
  }
  return out;
}
