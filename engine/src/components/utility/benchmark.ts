import { f, parseDuration, registerProcessor, type Logger } from '@svc/engine';

const spec = f.object({
  interval: f
    .duration()
    .default('5s')
    .describe('How often to emit rolling statistics. If set to 0, only a summary will be logged when the processor shuts down.'),
  count_bytes: f
    .bool()
    .default(true)
    .describe(
      'Whether or not to measure the number of bytes per second of throughput. Counting the number of bytes requires serializing structured data, which can cause an unnecessary performance hit if serialization is not required elsewhere in the pipeline.',
    ),
});

/** go-humanize's Ftoa: six decimals, trailing zeros dropped. */
function ftoa(n: number): string {
  return n.toFixed(6).replace(/\.?0+$/, '');
}

/** go-humanize's Bytes: SI units, one decimal below 10. */
function bytes(n: number): string {
  const s = Math.floor(n);
  if (s < 10) return `${s} B`;
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB'];
  const e = Math.floor(Math.log(s) / Math.log(1000));
  const val = Math.floor((s / 1000 ** e) * 10 + 0.5) / 10;
  return `${val < 10 ? val.toFixed(1) : val.toFixed(0)} ${units[e]}`;
}

class Stats {
  messages = 0;
  bytes = 0;
}

function report(log: Logger, window: string, stats: Stats, seconds: number, countBytes: boolean): void {
  const perSec = stats.messages / seconds;
  if (!countBytes) {
    log.info(`${window} stats: ${ftoa(perSec)} msg/sec`, { 'msg/sec': perSec });
    return;
  }
  const bytesPerSec = stats.bytes / seconds;
  log.info(`${window} stats: ${ftoa(perSec)} msg/sec, ${bytes(bytesPerSec)}/sec`, { 'msg/sec': perSec, 'bytes/sec': bytesPerSec });
}

/**
 * `benchmark`: logs the throughput of the messages passing through it, every `interval` and in
 * total when the stream stops (Benthos' benchmark processor). One count for every pipeline thread,
 * so it runs on the main thread.
 */
registerProcessor('benchmark', {
  summary: 'Logs basic throughput statistics of messages that pass through this processor.',
  description:
    'Logs messages per second and bytes per second of messages that are processed at a regular interval. A summary of the amount of messages processed over the entire lifetime of the processor will also be printed when the processor shuts down.',
  config: spec,
  mainThread: true,
  examples: ['pipeline:\n  processors:\n    - benchmark:\n        interval: 1s\n'],
  factory: (conf, ctx) => {
    const start = performance.now();
    const total = new Stats();
    let rolling = new Stats();
    const intervalMs = parseDuration(conf.interval);
    const timer =
      intervalMs > 0
        ? setInterval(() => {
            const s = rolling;
            rolling = new Stats();
            report(ctx.logger, 'rolling', s, intervalMs / 1000, conf.count_bytes);
          }, intervalMs)
        : undefined;
    timer?.unref();
    let closed = false;
    return {
      process(batch) {
        for (const m of batch) {
          total.messages++;
          rolling.messages++;
          if (conf.count_bytes) {
            total.bytes += m.byteLength;
            rolling.bytes += m.byteLength;
          }
        }
        return [batch];
      },
      async close() {
        if (closed) return;
        closed = true;
        if (timer) clearInterval(timer);
        report(ctx.logger, 'total', total, (performance.now() - start) / 1000, conf.count_bytes);
      },
    };
  },
});
