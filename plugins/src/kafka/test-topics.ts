/**
 * Test topics that are ready when created: Kafka answers CreateTopics before every broker serves
 * the new partitions, and right after a fresh broker starts a produce or fetch can still get
 * "This server does not host this topic-partition". So creation waits for the leaders and then
 * until metadata lists every partition with a leader (bounded, loopback only).
 */
import type { Admin, ITopicConfig } from 'kafkajs';

export async function createReadyTopic(admin: Admin, topic: ITopicConfig, timeoutMs = 30_000): Promise<void> {
  await admin.createTopics({ topics: [topic], waitForLeaders: true });
  const want = topic.numPartitions ?? 1;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic.topic] });
      const parts = topics[0]?.partitions ?? [];
      if (parts.length === want && parts.every((p) => p.leader >= 0)) return;
    } catch {
      // not known yet: ask again
    }
    if (Date.now() > deadline) throw new Error(`topic ${topic.topic}: its ${want} partition(s) had no leader within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
