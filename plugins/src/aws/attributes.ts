/**
 * Message metadata as SQS and SNS message attributes, as Benthos sends them: every metadata key
 * not excluded by `metadata.exclude_prefixes` and valid as an attribute name, sorted, each a
 * `String` attribute (structured values as JSON text). SQS takes at most 10 attributes: the first
 * ten keys in that order. Invalid names (`aws.` or `amazon.` prefixes, `..`, characters outside
 * `[a-z0-9_.-]`) are skipped.
 */
import { f, stringifyJson, type Message, type MetaValue } from '@svc/engine';

export const metadataField = f
  .object({
    exclude_prefixes: f.array(f.string()).default([]).describe('Metadata keys starting with one of these are not sent.'),
  })
  .describe('Which metadata is sent as message attributes: all of it except keys with these prefixes.');

const INVALID = /(^\.)|(\.\.)|(^aws\.)|(^amazon\.)|(\.$)|([^a-z0-9_\-.]+)/;

/** Whether `key` may name an SQS or SNS message attribute. */
function validAttributeName(key: string): boolean {
  return key !== '' && !INVALID.test(key.toLowerCase());
}

/** A metadata value as attribute text. */
export function metaText(v: MetaValue): string {
  if (typeof v === 'string') return v;
  if (v === null) return 'null';
  return typeof v === 'object' ? stringifyJson(v) : String(v);
}

export interface StringAttribute {
  DataType: 'String';
  StringValue: string;
}

/** The message's metadata as attributes (undefined when none), at most `limit` of them. */
export function messageAttributes(msg: Message, excludePrefixes: readonly string[], limit = Infinity): Record<string, StringAttribute> | undefined {
  if (!msg.hasMeta()) return undefined;
  const keys: string[] = [];
  outer: for (const [key] of msg.metaEntries()) {
    for (const p of excludePrefixes) if (key.startsWith(p)) continue outer;
    if (validAttributeName(key)) keys.push(key);
  }
  if (keys.length === 0) return undefined;
  keys.sort();
  const out: Record<string, StringAttribute> = {};
  for (let i = 0; i < keys.length && i < limit; i++) {
    const k = keys[i]!;
    out[k] = { DataType: 'String', StringValue: metaText(msg.getMeta(k)!) };
  }
  return out;
}
