/**
 * Metadata matching (`metadata`, `extract_headers`, `sync_response.metadata_headers`): a key
 * matches when it starts with one of `include_prefixes` or matches one of `include_patterns`
 * (RE2 regexes, so a pattern can never backtrack catastrophically). Both empty: nothing matches.
 */
import { RE2JS } from 're2js';
import { f, type Infer, type Message } from '@svc/engine';
import { re2PatternField } from '../regex/re2-pattern.js';

export const metadataFilterSpec = (what: string) =>
  f
    .object({
      include_prefixes: f.array(f.string()).default([]).describe(`Keys with one of these prefixes are ${what}.`),
      include_patterns: f.array(re2PatternField()).default([]).describe(`Keys matching one of these RE2 regexes are ${what}.`),
    })
    .describe(`Which keys are ${what}: by prefix or by regex; empty means none.`);

export type MetadataFilterConfig = Infer<ReturnType<typeof metadataFilterSpec>>;

export class MetadataFilter {
  private readonly prefixes: string[];
  private readonly patterns: RE2JS[];

  constructor(conf: MetadataFilterConfig | undefined) {
    this.prefixes = conf?.include_prefixes ?? [];
    this.patterns = (conf?.include_patterns ?? []).map((p) => RE2JS.compile(p));
  }

  /** True when no key can match. */
  get isEmpty(): boolean {
    return this.prefixes.length === 0 && this.patterns.length === 0;
  }

  matches(key: string): boolean {
    for (const p of this.prefixes) if (key.startsWith(p)) return true;
    for (const r of this.patterns) if (r.matcher(key).find()) return true;
    return false;
  }

  /** The matching metadata of a message, values as strings (structured ones JSON-encoded). */
  *walk(msg: Message): Generator<[string, string]> {
    if (this.isEmpty || !msg.hasMeta()) return;
    for (const [k] of msg.metaEntries()) if (this.matches(k)) yield [k, msg.getMetaString(k)];
  }
}
