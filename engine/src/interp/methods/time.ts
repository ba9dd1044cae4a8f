/**
 * Timestamp methods with Go layouts. Targets may be timestamps, RFC 3339 strings or unix
 * seconds (numbers), as Bloblang accepts.
 */
import { QueryError, typeError } from '../errors.js';
import { addNanos, addPeriod, parsePeriod, periodNanos } from '../durations.js';
import { asStrictInt, asString, defineMethod, pluginMethod } from '../registry.js';
import type { State } from '../state.js';
import { RFC3339_NANO, Timestamp, Zone, formatTime, parseTime } from '../timestamp.js';
import { JsonNumber, WholeFloat, toStr } from '../values.js';
import { strftime } from '../strftime.js';
import { strptime } from '../strptime.js';
import type { Args } from '../registry.js';

/** Bloblang's IGetTimestamp: timestamps as is, numbers as unix seconds, strings as RFC 3339. */
export function toTimestamp(v: unknown): Timestamp {
  if (v instanceof Timestamp) return v;
  if (typeof v === 'number') return Timestamp.fromUnix(v, Zone.Local);
  if (v instanceof JsonNumber || v instanceof WholeFloat) return Timestamp.fromUnix(v.value, Zone.Local);
  if (typeof v === 'string' || v instanceof Uint8Array) return parseTime(RFC3339_NANO, toStr(v));
  throw typeError(v, 'number', 'string');
}

/** The unix seconds and nanoseconds of a value, exact for an int64 number (a 64-bit id used as a time). */
function unixOf(v: unknown): { sec: bigint; nsec: number } {
  if (v instanceof JsonNumber && v.int !== undefined) return { sec: v.int, nsec: 0 };
  const t = toTimestamp(v);
  return { sec: BigInt(t.sec), nsec: t.nsec };
}

/** An int64 result as Go computes it: wrapping on overflow (UnixNano of year 318857 wraps). */
function int64(n: bigint): number | JsonNumber {
  return JsonNumber.ofInt(BigInt.asIntN(64, n));
}

function zoneArg(a: Args, i: number): (c: State, self: unknown) => Zone | undefined {
  if (!a.given(i)) return () => undefined;
  if (a.isConst(i)) {
    const z = Zone.load(asString(a.const(i)));
    return () => z;
  }
  return (c, self) => {
    try {
      return Zone.load(asString(a.get(i, c, self)));
    } catch (e) {
      throw new QueryError(e instanceof Error ? e.message : String(e));
    }
  };
}

defineMethod('ts_parse', {
  params: [
    { name: 'format', type: 'string' },
    { name: 'tz', type: 'string', optional: true },
  ],
  build(a) {
    const zoneOf = zoneArg(a, 1);
    return (v, c, self) => {
      // a timestamp is read as its RFC 3339 text, as in Benthos
      if (typeof v !== 'string' && !(v instanceof Uint8Array) && !(v instanceof Timestamp)) throw typeError(v, 'string');
      const z = zoneOf(c, self);
      try {
        return parseTime(asString(a.get(0, c, self)), toStr(v), z ?? Zone.UTC);
      } catch (e) {
        throw new QueryError(e instanceof Error ? e.message : String(e));
      }
    };
  },
});

defineMethod('ts_format', {
  params: [
    { name: 'format', type: 'string', default: RFC3339_NANO },
    { name: 'tz', type: 'string', optional: true },
  ],
  build(a) {
    const zoneOf = zoneArg(a, 1);
    return (v, c, self) => {
      let t = toTimestamp(v);
      const z = zoneOf(c, self);
      if (z) t = t.in(z);
      return formatTime(t, asString(a.get(0, c, self)));
    };
  },
});

defineMethod('ts_tz', {
  params: [{ name: 'tz', type: 'string' }],
  build(a) {
    const zoneOf = zoneArg(a, 0);
    return (v, c, self) => toTimestamp(v).in(zoneOf(c, self)!);
  },
});

defineMethod('ts_unix', { params: [], build: () => (v) => int64(unixOf(v).sec) });
// Go's UnixMilli / UnixMicro floor (seconds plus whole units of the non-negative nanoseconds).
defineMethod('ts_unix_milli', {
  params: [],
  build: () => (v) => {
    const t = unixOf(v);
    return int64(t.sec * 1000n + BigInt(Math.floor(t.nsec / 1_000_000)));
  },
});
defineMethod('ts_unix_micro', {
  params: [],
  build: () => (v) => {
    const t = unixOf(v);
    return int64(t.sec * 1_000_000n + BigInt(Math.floor(t.nsec / 1000)));
  },
});
defineMethod('ts_unix_nano', {
  params: [],
  build: () => (v) => {
    const t = unixOf(v);
    return int64(t.sec * 1_000_000_000n + BigInt(t.nsec));
  },
});

/** `ts_round(duration)`: Go's Time.Round (halves away from zero, measured from year 1). */
pluginMethod('ts_round', [{ name: 'duration', type: 'number' }], ([d]) => {
  const dur = BigInt(asStrictInt(d));
  return (v) => {
    const t = toTimestamp(v);
    if (dur <= 0n) return t;
    const abs = t.unixNano() + 62_135_596_800n * 1_000_000_000n;
    const r = ((abs % dur) + dur) % dur;
    return addNanos(t, r + r < dur ? -r : dur - r);
  };
});

/** `ts_sub(t2)`: t - t2 in nanoseconds, saturated at the int64 bounds as Go's Sub. */
pluginMethod('ts_sub', [{ name: 't2' }], ([t2]) => {
  const other = toTimestamp(t2);
  return (v) => {
    const d = toTimestamp(v).unixNano() - other.unixNano();
    const max = (1n << 63n) - 1n;
    return JsonNumber.ofInt(d > max ? max : d < -max - 1n ? -max - 1n : d);
  };
});

function isoShift(name: string, negate: boolean): void {
  pluginMethod(name, [{ name: 'duration', type: 'string' }], ([d]) => {
    const p = parsePeriod(asString(d));
    return (v) => addPeriod(toTimestamp(v), p, negate);
  });
}
isoShift('ts_add_iso8601', false);
isoShift('ts_sub_iso8601', true);

pluginMethod('parse_duration_iso8601', [], () => (v) => {
  if (typeof v !== 'string' && !(v instanceof Uint8Array)) throw typeError(v, 'string');
  return JsonNumber.ofInt(periodNanos(parsePeriod(toStr(v))));
});

/** `ts_strftime(format, tz)`: Benthos' plugin (itchyny/timefmt-go); the zone of the target unless `tz` names one. */
pluginMethod(
  'ts_strftime',
  [
    { name: 'format', type: 'string' },
    { name: 'tz', type: 'string', optional: true },
  ],
  ([format, tz]) => {
    const layout = asString(format);
    let zone: Zone | undefined;
    if (tz !== undefined) {
      try {
        zone = Zone.load(asString(tz));
      } catch (e) {
        throw new QueryError(`failed to parse timezone location name: ${(e as Error).message}`);
      }
    }
    return (v) => {
      const t = toTimestamp(v);
      return strftime(zone ? t.in(zone) : t, layout);
    };
  },
);

/** `ts_strptime(format)`: Benthos' plugin (itchyny/timefmt-go's Parse: no zone in the text is UTC). */
pluginMethod('ts_strptime', [{ name: 'format', type: 'string' }], ([format]) => {
  const layout = asString(format);
  return (v) => {
    if (typeof v !== 'string' && !(v instanceof Uint8Array)) throw typeError(v, 'string');
    try {
      return strptime(toStr(v), layout);
    } catch (e) {
      throw new QueryError((e as Error).message);
    }
  };
});
