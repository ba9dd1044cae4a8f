/**
 * `metrics.mapping` (Benthos' field beside the metrics type): a mapping run once per metric series
 * as it is first made, with `this` the metric's name and the metadata its component labels
 * (`label`, `path`, and `stream` in streams mode). It gives the series its exported name (`root`),
 * or drops it (`root = deleted()`), and its labels (the metadata after the mapping, names sorted,
 * as Benthos orders them); a component's own labels follow unchanged. A mapping that fails keeps
 * the name and labels as they were, and logs why once per name.
 */
import { errorMessage } from '../errors.js';
import { compileMapping, type Mapping } from '../interp/index.js';
import { Message } from '../message/message.js';
import type { Logger } from './logger.js';

export interface MappedSeries {
  name: string;
  labelNames: string[];
  labelValues: string[];
}

export class MetricMapping {
  private readonly mapping: Mapping;
  private readonly failed = new Set<string>();

  constructor(
    text: string,
    private readonly log?: Logger,
  ) {
    this.mapping = compileMapping(text);
  }

  /** The series as exported, or undefined when the mapping drops it. */
  map(name: string, labelNames: readonly string[], labelValues: readonly string[]): MappedSeries | undefined {
    const msg = new Message('');
    msg.setJson(name);
    for (let i = 0; i < labelNames.length; i++) msg.setMeta(labelNames[i]!, labelValues[i]!);
    let out;
    try {
      out = this.mapping.exec(msg, { batch: [msg], index: 0 });
    } catch (err) {
      return this.unchanged(name, labelNames, labelValues, errorMessage(err));
    }
    if (out.deleted) return undefined;
    const root = out.root === undefined ? name : out.root;
    if (typeof root !== 'string') return this.unchanged(name, labelNames, labelValues, `expected a string name, got ${typeof root}`);
    const meta = out.meta ?? new Map(labelNames.map((k, i) => [k, labelValues[i]!]));
    const names = [...meta.keys()].sort();
    return { name: root, labelNames: names, labelValues: names.map((k) => String(meta.get(k))) };
  }

  private unchanged(name: string, labelNames: readonly string[], labelValues: readonly string[], why: string): MappedSeries {
    if (!this.failed.has(name)) {
      this.failed.add(name);
      this.log?.error(`Failed to apply the metrics mapping on '${name}': ${why}`);
    }
    return { name, labelNames: [...labelNames], labelValues: [...labelValues] };
  }
}
