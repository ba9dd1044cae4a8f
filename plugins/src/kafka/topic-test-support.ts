/**
 * Creating the topics a broker test (or bench) uses, and waiting until the broker serves them.
 *
 * A created topic is not usable at once: the broker publishes it in its metadata cache first and
 * makes its replica the partition's leader a moment later; in between, metadata may name no
 * leader and a produce, fetch or offsets request gets UNKNOWN_TOPIC_OR_PARTITION ("This server
 * does not host this topic-partition"). On a busy machine, or right after the broker started,
 * that moment is long enough for a test's first request to land in it. kafkajs's
 * `waitForLeaders` does not cover it: it retries LEADER_NOT_AVAILABLE only and throws the unknown
 * topic error itself. So the topic counts as ready once its metadata names a leader for every
 * partition and the leader answers an offsets request for each of them.
 */
import type { Admin, ITopicConfig } from 'kafkajs';
import { waitFor } from '@svc/engine/testing';

/** How long creation plus the wait may take before the test fails saying which topic was not served. */
const READY_TIMEOUT_MS = 60_000;

/**
 * Creates `topics` (replication factor 1 unless given) and resolves once every one is served:
 * metadata with a leader for each partition, and offsets answered for each partition.
 */
export async function createServedTopics(admin: Admin, topics: ITopicConfig[], timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  await admin.createTopics({
    topics: topics.map((t) => ({ replicationFactor: 1, ...t })),
    waitForLeaders: false,
    timeout: timeoutMs,
  });
  await Promise.all(topics.map((t) => waitServed(admin, t.topic, t.numPartitions ?? -1, timeoutMs)));
}

/** Resolves once `topic` has `partitions` partitions (any number when -1), each led and answering offsets. */
export function waitServed(admin: Admin, topic: string, partitions: number, timeoutMs = READY_TIMEOUT_MS): Promise<true> {
  const want = partitions > 0 ? `${partitions} partition(s)` : 'its partitions';
  return waitFor(
    `the broker to serve topic ${topic} (a leader and offsets for ${want})`,
    async () => {
      const [meta] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
      const led = meta?.partitions.filter((p) => p.leader >= 0 && p.partitionErrorCode === 0) ?? [];
      if (led.length === 0 || (partitions > 0 && led.length !== partitions) || led.length !== meta!.partitions.length) return undefined;
      const offsets = await admin.fetchTopicOffsets(topic);
      return offsets.length === led.length ? true : undefined;
    },
    timeoutMs,
    100,
  );
}
