/**
 * Calendar dates from days since 1970-01-01 and back, for any year (proleptic Gregorian, as Go's
 * time package): JS Dates stop at year 275760, Go goes on to year 292277026596, so a unix time
 * beyond a Date's range still formats as Benthos formats it instead of `NaN`. The algorithms are
 * Howard Hinnant's days_from_civil / civil_from_days.
 */

export interface Civil {
  year: number;
  /** 0-11 */
  month: number;
  /** 1-31 */
  day: number;
  /** 0 = Sunday */
  weekday: number;
}

/** The date `days` days after 1970-01-01. */
export function civilFromDays(days: number): Civil {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 2 : mp - 10;
  const year = yoe + era * 400 + (month <= 1 ? 1 : 0);
  return { year, month, day, weekday: (((days + 4) % 7) + 7) % 7 };
}

/** Days since 1970-01-01 of a date (`month` 0-11; out-of-range days and months carry over). */
export function daysFromCivil(year: number, month: number, day: number): number {
  year += Math.floor(month / 12);
  month = ((month % 12) + 12) % 12;
  const y = month <= 1 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = month >= 2 ? month - 2 : month + 10;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}
