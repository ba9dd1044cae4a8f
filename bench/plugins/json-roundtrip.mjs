// A CPU-heavy processor for the threads benchmark: parse each message as JSON, touch it,
// serialise it again. A custom plugin, loaded on every pipeline thread by path.
import { f, registerProcessor } from '@svc/engine';

registerProcessor('bench_json_roundtrip', {
  summary: 'Benchmark processor: JSON parse + re-serialise of every message.',
  config: f.object({}),
  factory: () => ({
    process(batch) {
      for (const m of batch) {
        const doc = JSON.parse(m.content.toString('utf8'));
        doc.seen = true;
        m.content = Buffer.from(JSON.stringify(doc));
      }
      return [batch];
    },
  }),
});
