/**
 * The bounds of one message's unarchiving (svc's `unarchive` fields, Benthos has none): how many
 * entries, how large one entry, how large all of them. An archive is client data: a zip of
 * overlapping entries or a tar of a million empty files must not become memory.
 */
import { ErrorCode, SvcError } from '@svc/engine';

export interface UnarchiveLimits {
  max_entries: number;
  max_entry_bytes: number;
  max_total_bytes: number;
}

export class EntryBudget {
  private entries = 0;
  private total = 0;

  constructor(private readonly limits: UnarchiveLimits) {}

  /** Counts one entry of `size` bytes, before it is copied or inflated; throws once a bound is passed. */
  admit(size: number, name?: string): void {
    const { max_entries, max_entry_bytes, max_total_bytes } = this.limits;
    const entry = name === undefined ? `entry ${this.entries}` : `entry "${name}"`;
    if (++this.entries > max_entries) throw new SvcError(ErrorCode.Processing, `unarchive: the archive holds more than ${max_entries} entries (max_entries)`);
    if (size > max_entry_bytes) throw new SvcError(ErrorCode.Processing, `unarchive: ${entry} is larger than ${max_entry_bytes} bytes (max_entry_bytes)`);
    this.total += size;
    if (this.total > max_total_bytes)
      throw new SvcError(ErrorCode.Processing, `unarchive: the entries are larger than ${max_total_bytes} bytes in all (max_total_bytes)`);
  }

  /** Counts `n` entries whose sizes are not known (parsed JSON values): only max_entries applies. */
  admitCount(n: number): void {
    this.entries += n;
    if (this.entries > this.limits.max_entries)
      throw new SvcError(ErrorCode.Processing, `unarchive: the archive holds more than ${this.limits.max_entries} entries (max_entries)`);
  }
}
