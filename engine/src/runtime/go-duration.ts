/** Go's time.Duration.String of nanoseconds: `1h0m0s`, `1m30s`, `2.5s`, `500ms`, `0s`. */
export function goDurationString(ns: bigint): string {
  if (ns < 0n) return '-' + goDurationString(-ns);
  if (ns === 0n) return '0s';
  if (ns < 1_000n) return `${ns}ns`;
  if (ns < 1_000_000n) return `${Number(ns) / 1e3}µs`;
  if (ns < 1_000_000_000n) return `${Number(ns) / 1e6}ms`;
  const sec = ns % 60_000_000_000n;
  const s = `${sec / 1_000_000_000n}${sec % 1_000_000_000n ? '.' + (sec % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '') : ''}s`;
  const m = (ns / 60_000_000_000n) % 60n;
  const h = ns / 3_600_000_000_000n;
  return h > 0n ? `${h}h${m}m${s}` : m > 0n ? `${m}m${s}` : s;
}
