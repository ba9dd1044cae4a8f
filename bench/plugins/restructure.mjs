// The mapping benchmark's baseline: the same 10-field restructure as bench/mapping.mjs's
// mapping, hand-written as a processor plugin.
import { f, registerProcessor } from '@svc/engine';

registerProcessor('bench_restructure', {
  summary: 'Benchmark processor: a hand-written 10-field restructure of a JSON document.',
  config: f.object({}),
  factory: () => ({
    process(batch) {
      for (const m of batch) {
        const d = JSON.parse(m.content.toString('utf8'));
        const out = {
          id: d.id,
          name: d.user.first + ' ' + d.user.last,
          email: d.user.email.toLowerCase(),
          age: d.user.age,
          city: d.address.city,
          country: d.address.country.toUpperCase(),
          total: d.order.price * d.order.quantity,
          items: d.order.items.length,
          tags: d.tags.join(','),
          active: d.status === 'active',
        };
        m.content = Buffer.from(JSON.stringify(out));
      }
      return [batch];
    },
  }),
});
