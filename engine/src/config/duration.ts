import { SvcError, ErrorCode } from '../errors.js';

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART_RE = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;

/**
 * Parses a Go-style duration (`300ms`, `1m30s`, `2h`) into milliseconds.
 * `''` and `'0'` are zero. Throws an SvcError on anything else.
 */
export function parseDuration(text: string): number {
  if (text === '' || text === '0') return 0;
  PART_RE.lastIndex = 0;
  let total = 0;
  let pos = 0;
  while (pos < text.length) {
    PART_RE.lastIndex = pos;
    const m = PART_RE.exec(text);
    if (!m) throw new SvcError(ErrorCode.ConfigLint, `invalid duration "${text}": use a number with a unit, e.g. 500ms, 5s, 1m30s`);
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    pos = PART_RE.lastIndex;
  }
  return total;
}
