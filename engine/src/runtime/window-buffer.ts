/**
 * The `system_window` buffer (Benthos' system_window): messages are put in windows of `size` by
 * the timestamp `timestamp_mapping` gives each (default `now()`, the processing time), windows
 * aligned to the UTC clock (plus `offset`), tumbling, or sliding by `slide`. A window is
 * delivered as one batch once the system clock passes its end plus `allowed_lateness`, each
 * message carrying `window_end_timestamp` (RFC 3339). The input's transaction is acked when all
 * its messages were delivered in a window, or dropped: older than the last window flushed, or
 * left behind by two windows. At the input's end what is pending is nacked (it was not windowed)
 * and the stream ends, as in Benthos. Times are held in nanoseconds since Go's zero time, so
 * windows round as Go's Time.Round does.
 */
import { type Batch, type Message } from '../message/message.js';
import { END_OF_INPUT, type Ack, type Transaction } from '../message/transaction.js';
import { splitAck } from '../message/transaction.js';
import { errorMessage } from '../errors.js';
import type { Mapping } from '../interp/mapping.js';
import { JsonNumber } from '../message/json-number.js';
import type { Logger } from '../observability/logger.js';
import { Signal, pumpInput } from './buffer.js';
import type { Source, SourceRead } from './source.js';

/** Seconds from Go's zero time (year 1) to the Unix epoch. */
const GO_EPOCH_NS = 62135596800n * 1_000_000_000n;

export interface WindowConfig {
  size: bigint;
  slide: bigint;
  offset: bigint;
  allowedLateness: bigint;
}

interface Pending {
  ts: bigint;
  msg: Message;
  ack: Ack;
}

/** Now, in ns since Go's zero time. */
export type Clock = () => bigint;
export const systemClock: Clock = () => BigInt(Date.now()) * 1_000_000n + GO_EPOCH_NS;

/** Go's Time.Format(time.RFC3339Nano) of a UTC time. */
export function rfc3339Nano(t: bigint): string {
  const unixNs = t - GO_EPOCH_NS;
  let sec = unixNs / 1_000_000_000n;
  let ns = unixNs % 1_000_000_000n;
  if (ns < 0n) {
    ns += 1_000_000_000n;
    sec -= 1n;
  }
  const base = new Date(Number(sec) * 1000).toISOString().slice(0, 19);
  const frac = ns === 0n ? '' : '.' + ns.toString().padStart(9, '0').replace(/0+$/, '');
  return `${base}${frac}Z`;
}

/** A timestamp as Benthos' IGetTimestamp reads one: unix seconds (a number) or an RFC 3339 string. */
export function timestampOf(v: unknown): bigint {
  if (v instanceof JsonNumber) v = /^-?\d+$/.test(v.text) ? BigInt(v.text) : v.value;
  if (typeof v === 'bigint') return v * 1_000_000_000n + GO_EPOCH_NS;
  if (typeof v === 'number' && Number.isFinite(v)) {
    const whole = Math.trunc(v);
    return BigInt(whole) * 1_000_000_000n + BigInt(Math.trunc((v - whole) * 1e9)) + GO_EPOCH_NS;
  }
  if (v instanceof Date) return BigInt(v.getTime()) * 1_000_000n + GO_EPOCH_NS;
  if (typeof v === 'string') {
    const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(v);
    const ms = m ? Date.parse(m[1]! + (m[3] === 'Z' ? 'Z' : m[3])) : NaN;
    if (!m || Number.isNaN(ms)) throw new Error(`parsing time ${JSON.stringify(v)} as RFC 3339`);
    return BigInt(ms) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0') || '0') + GO_EPOCH_NS;
  }
  throw new Error(`expected number or string value, got ${v === null ? 'null' : typeof v}`);
}

/** Go's Time.Round(d) on ns since its zero time: halves round up. */
function round(t: bigint, d: bigint): bigint {
  const r = t % d;
  return r + r < d ? t - r : t + d - r;
}

export class SystemWindowSource implements Source {
  private pending: Pending[] = [];
  private latestFlushedWindowEnd = 0n;
  private oldestTs: bigint;
  private ended = false;
  private failure: { error: unknown } | undefined;
  private pump: Promise<void> | undefined;
  private readonly endSignal = new Signal();

  constructor(
    private readonly inner: Source,
    private readonly conf: WindowConfig,
    private readonly mapping: Mapping,
    private readonly log: Logger,
    private readonly clock: Clock = systemClock,
  ) {
    this.oldestTs = clock();
  }

  async connect(): Promise<void> {
    await this.inner.connect();
    this.pump ??= this.run();
  }

  private async run(): Promise<void> {
    try {
      this.failure = await pumpInput(this.inner, (tx) => this.write(tx), this.log, 'Window buffer');
    } finally {
      this.ended = true;
      this.endSignal.notify();
    }
  }

  /** [prevStart, prevEnd, start, end] of the window the clock is in (Benthos' nextSystemWindow). */
  private windows(): [bigint, bigint, bigint, bigint] {
    const now = this.clock();
    const { size, slide, offset } = this.conf;
    const epoch = slide > 0n ? slide : size;
    let start = round(now, epoch) + 1n + offset;
    if (start > now) start -= epoch;
    if (slide > 0n) start += slide - size;
    const end = start + size - 1n;
    return [start - epoch, end - epoch, start, end];
  }

  private write(tx: Transaction): void {
    const [prevStart] = this.windows();
    if (this.latestFlushedWindowEnd < prevStart && this.oldestTs < prevStart) {
      // Under back-pressure: windows older than the last one are dropped (acked).
      let oldest = this.clock();
      this.pending = this.pending.filter((p) => {
        if (p.ts < prevStart) {
          p.ack();
          return false;
        }
        if (p.ts < oldest) oldest = p.ts;
        return true;
      });
      this.oldestTs = oldest;
    }
    const batch = tx.batch;
    const stamped: { ts: bigint; msg: Message }[] = [];
    for (let i = 0; i < batch.length; i++) {
      let ts: bigint;
      try {
        ts = timestampOf(this.mapping.exec(batch[i]!, { batch, index: i }).root);
      } catch (err) {
        // Benthos: the batch is rejected (nacked) when a timestamp cannot be had.
        this.log.error(`Timestamp mapping failed for message: ${errorMessage(err)}`);
        tx.ack(new Error(`timestamp mapping failed: ${errorMessage(err)}`));
        return;
      }
      if (ts <= this.latestFlushedWindowEnd) continue;
      stamped.push({ ts, msg: batch[i]! });
    }
    if (stamped.length === 0) {
      tx.ack();
      return;
    }
    const ack = splitAck(tx.ack, stamped.length);
    for (const s of stamped) {
      // once per message: a sliding window delivers it again, as a best attempt (Benthos)
      let done = false;
      const once: Ack = (err) => {
        if (done) return;
        done = true;
        ack(err);
      };
      this.pending.push({ ts: s.ts, msg: s.msg, ack: once });
      if (s.ts < this.oldestTs) this.oldestTs = s.ts;
    }
  }

  private flush(start: bigint, end: bigint): Transaction | undefined {
    const next = start + (this.conf.slide > 0n ? this.conf.slide : this.conf.size);
    const out: Batch = [];
    const acks: Ack[] = [];
    const keep: Pending[] = [];
    let oldest = this.clock();
    const endText = rfc3339Nano(end);
    for (const p of this.pending) {
      const inWindow = p.ts >= start && p.ts <= end;
      const preserve = p.ts >= next;
      if (inWindow) {
        const m = p.msg.copy();
        m.setMeta('window_end_timestamp', endText);
        out.push(m);
        acks.push(p.ack);
      }
      if (preserve) {
        if (p.ts < oldest) oldest = p.ts;
        keep.push(p);
      }
      if (!inWindow && !preserve) p.ack();
    }
    this.pending = keep;
    this.latestFlushedWindowEnd = end;
    this.oldestTs = oldest;
    if (out.length === 0) return undefined;
    return { batch: out, ack: (err) => acks.forEach((a) => a(err)) };
  }

  async read(): Promise<SourceRead> {
    this.pump ??= this.run();
    const [prevStart, prevEnd, firstStart, firstEnd] = this.windows();
    let start = firstStart;
    let end = firstEnd;
    if (this.latestFlushedWindowEnd < prevStart) {
      const tx = this.flush(prevStart, prevEnd);
      if (tx) return tx;
    }
    for (;;) {
      const waitNs = end - this.clock() + this.conf.allowedLateness;
      let endedFirst = false;
      if (waitNs > 0n) {
        let timer: NodeJS.Timeout | undefined;
        const elapsed = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), Number(waitNs / 1_000_000n) + 1)));
        endedFirst = this.ended || (await Promise.race([elapsed, this.endSignal.wait().then(() => true)]));
        clearTimeout(timer);
      }
      if (endedFirst) {
        const why = new Error('message rejected as window did not complete');
        for (const p of this.pending) p.ack(why);
        this.pending = [];
        if (this.failure) throw this.failure.error;
        return END_OF_INPUT;
      }
      const tx = this.flush(start, end);
      if (tx) return tx;
      [, , start, end] = this.windows();
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
