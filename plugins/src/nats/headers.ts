/**
 * NATS headers and message metadata, as Benthos maps them: a received message's headers become
 * metadata (the first value of each); an output sends its interpolated `headers`, then the
 * metadata that `metadata.include_prefixes` / `include_patterns` (RE2) select (none by default).
 */
import type { MsgHdrs } from 'nats';
import { RE2JS } from 're2js';
import { f, re2PatternField, stringifyJson, type Message, type MetaValue } from '@svc/engine';

export const metadataFilterField = f
  .object({
    include_prefixes: f.array(f.string()).default([]).describe('Metadata keys starting with one of these are sent as headers.'),
    include_patterns: f.array(re2PatternField()).default([]).describe('Metadata keys matching one of these RE2 regexes are sent as headers.'),
  })
  .describe('Which metadata is sent as headers (none unless a prefix or pattern matches).');

/** Headers to metadata (the first value of each; `Nats-*` status headers included, as Benthos). */
export function headerMetadata(headers: MsgHdrs | undefined, into: Record<string, MetaValue>): void {
  if (!headers) return;
  for (const [k, values] of headers) {
    const v = values[0];
    if (v !== undefined) into[k] = v;
  }
}

/** Decides which metadata keys are sent. */
export class MetadataFilter {
  private readonly prefixes: string[];
  private readonly patterns: RE2JS[];

  constructor(conf: { include_prefixes: string[]; include_patterns: string[] }) {
    this.prefixes = conf.include_prefixes;
    this.patterns = conf.include_patterns.map((p) => RE2JS.compile(p));
  }

  get empty(): boolean {
    return this.prefixes.length === 0 && this.patterns.length === 0;
  }

  includes(key: string): boolean {
    return this.prefixes.some((p) => key.startsWith(p)) || this.patterns.some((p) => p.matcher(key).find());
  }

  /** Sets the selected metadata of `msg` on `headers`. */
  apply(msg: Message, set: (key: string, value: string) => void): void {
    if (this.empty || !msg.hasMeta()) return;
    for (const [k, v] of msg.metaEntries()) if (this.includes(k)) set(k, typeof v === 'string' ? v : stringifyJson(v));
  }
}
