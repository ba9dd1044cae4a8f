/** Reads the Prometheus text exposition format, for tests. */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE_RE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL_RE = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE_RE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL_RE)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_s, c: string) => (c === 'n' ? '\n' : c));
    const v = m[3]!;
    out.push({ name: m[1]!, labels, value: v === '+Inf' ? Infinity : v === '-Inf' ? -Infinity : Number(v) });
  }
  return out;
}

/** The value of the one sample with this name whose labels include `labels`; throws when there is not exactly one. */
export function sample(text: string | Sample[], name: string, labels: Record<string, string> = {}): number {
  const all = typeof text === 'string' ? parseExposition(text) : text;
  const hits = all.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (hits.length !== 1) throw new Error(`expected one sample ${name}${JSON.stringify(labels)}, found ${hits.length}`);
  return hits[0]!.value;
}

/** Every sample with this name and these labels. */
export function samples(text: string | Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  const all = typeof text === 'string' ? parseExposition(text) : text;
  return all.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}
