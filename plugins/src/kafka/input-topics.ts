/**
 * The `topics` field of the `logbus` input: comma lists, plain topics (balanced across the
 * consumer group) and explicit partitions (`foo:0`, `foo:0-10`, inclusive), as in Benthos.
 */

/** What `topics` asks for. */
export interface TopicSelection {
  /** Topics whose partitions the group balances across its members. */
  readonly balanced: string[];
  /** Explicit partitions by topic (sorted, without duplicates): consumed by direct assignment. */
  readonly explicit: Map<string, number[]>;
}

const PARTITION = /^\d+$/;

function partitionNumber(item: string, text: string): number {
  const t = text.trim();
  if (!PARTITION.test(t)) throw new Error(`topics: "${item}": "${t}" is not a partition number (write topic:N or topic:N-M)`);
  const n = Number(t);
  if (n > 2 ** 31 - 1) throw new Error(`topics: "${item}": partition ${t} is out of range`);
  return n;
}

/** Parses `topics`; throws an Error that says which item is wrong and how to write it. */
export function parseTopics(items: readonly string[]): TopicSelection {
  const balanced: string[] = [];
  const explicit = new Map<string, Set<number>>();
  for (const raw of items) {
    for (const piece of raw.split(',')) {
      const item = piece.trim();
      if (item === '') continue;
      const parts = item.split(':');
      if (parts.length === 1) {
        if (!balanced.includes(item)) balanced.push(item);
        continue;
      }
      if (parts.length > 2) {
        throw new Error(`topics: "${item}": give one partition or range per item, e.g. foo:0,foo:1 or foo:0-1, not foo:0:1`);
      }
      const topic = parts[0]!.trim();
      if (topic === '') throw new Error(`topics: "${item}": the topic name is missing before ":"`);
      const range = parts[1]!.split('-');
      if (range.length > 2) throw new Error(`topics: "${item}": a range is written N-M, e.g. ${topic}:0-10`);
      const lo = partitionNumber(item, range[0]!);
      const hi = range.length === 2 ? partitionNumber(item, range[1]!) : lo;
      if (hi < lo) throw new Error(`topics: "${item}": the range ends before it starts (write ${topic}:${hi}-${lo})`);
      if (hi - lo >= 100_000) throw new Error(`topics: "${item}": the range is too large`);
      let set = explicit.get(topic);
      if (!set) explicit.set(topic, (set = new Set()));
      for (let p = lo; p <= hi; p++) set.add(p);
    }
  }
  const sorted = new Map<string, number[]>();
  for (const [topic, set] of explicit)
    sorted.set(
      topic,
      [...set].sort((a, b) => a - b),
    );
  return { balanced, explicit: sorted };
}

/** Every topic named, balanced or explicit. */
export function topicNames(sel: TopicSelection): string[] {
  return [...sel.balanced, ...sel.explicit.keys()];
}
