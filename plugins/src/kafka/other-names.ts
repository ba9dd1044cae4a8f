/**
 * `kafka_franz` and `redpanda`: the names Redpanda Connect gives its franz-go Kafka components.
 * They are not implemented here; a config that names them is refused at load with what to write
 * instead, since their fields differ from `kafka`'s and a silent mapping could consume or write
 * differently than the user expects (offsets, partitioners, batching).
 */
import { f, registerInput, registerOutput } from '@svc/engine';

/** How the fields of the franz-go components map to `kafka`'s, for the refusal message. */
const INPUT_FIELDS =
  'seed_brokers → addresses, topics → topics, consumer_group → consumer_group, start_offset: earliest|latest → start_from_oldest: true|false, ' +
  'checkpoint_limit, commit_period, tls and sasl keep their names; regexp_topics, rack_id, fetch_* and multi_header have no equivalent';
const OUTPUT_FIELDS =
  'seed_brokers → addresses, topic, key, partition, tls and sasl keep their names, partitioner: murmur2_hash|round_robin|manual → the same values ' +
  '(least_backup has no equivalent), compression → compression, metadata.include_* → metadata.exclude_prefixes (inverted), max_message_bytes → max_msg_bytes';

function refusal(kind: 'input' | 'output', name: string): string {
  return `the ${kind} "${name}" (Redpanda Connect's franz-go Kafka ${kind}) is not implemented: use the "kafka" ${kind} instead; its fields differ: ${kind === 'input' ? INPUT_FIELDS : OUTPUT_FIELDS}`;
}

for (const name of ['kafka_franz', 'redpanda'] as const) {
  for (const kind of ['input', 'output'] as const) {
    const spec = {
      summary: `Not implemented: refused at load, pointing at \`kafka\` (Redpanda Connect's franz-go Kafka ${kind}).`,
      description: refusal(kind, name),
      config: f.any().validate(() => refusal(kind, name)),
      factory: () => {
        throw new Error(refusal(kind, name));
      },
    };
    if (kind === 'input') registerInput(name, spec);
    else registerOutput(name, spec);
  }
}
