/**
 * The topics the `logbus` / `kafka` output writes to: which exist (cached once seen, so the
 * hot path never asks), creating missing ones with `custom_topic_creation`, and naming the
 * missing ones when a write fails because of them. One listing or creation at a time per topic,
 * however many writes are in flight.
 */
import type { Admin, Kafka } from 'kafkajs';

export interface TopicCreation {
  enabled: boolean;
  /** -1: the broker's default. */
  partitions: number;
  /** -1: the broker's default. */
  replication_factor: number;
}

export class TopicAdmin {
  private readonly known = new Set<string>();
  private listing: Promise<Set<string>> | undefined;
  private readonly creating = new Map<string, Promise<void>>();
  private client: Promise<Admin> | undefined;

  constructor(
    private readonly kafka: Kafka,
    private readonly creation: TopicCreation,
    private readonly retry: { retries: number; initialRetryTime: number; maxRetryTime: number },
  ) {}

  /** The admin client, connected on first use. */
  private admin(): Promise<Admin> {
    return (this.client ??= (async () => {
      const a = this.kafka.admin({ retry: this.retry });
      await a.connect();
      return a;
    })().catch((err: unknown) => {
      this.client = undefined;
      throw err;
    }));
  }

  /** How many brokers the cluster has. */
  async brokerCount(): Promise<number> {
    return (await (await this.admin()).describeCluster()).brokers.length;
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    await c?.then((a) => a.disconnect()).catch(() => undefined);
  }

  /** The topics the cluster has now (one request shared by concurrent callers). */
  list(): Promise<Set<string>> {
    return (this.listing ??= this.admin()
      .then((a) => a.listTopics())
      .then((names) => {
        for (const n of names) this.known.add(n);
        return new Set(names);
      })
      .finally(() => (this.listing = undefined)));
  }

  /** Of `topics`, those the cluster does not have. */
  async missing(topics: Iterable<string>): Promise<string[]> {
    const existing = await this.list();
    return [...new Set(topics)].filter((t) => !existing.has(t));
  }

  /** Drops topics from the cache (found missing after all: deleted since). */
  forget(topics: Iterable<string>): void {
    for (const t of topics) this.known.delete(t);
  }

  /** With `custom_topic_creation`: creates the topics the cluster does not have yet. */
  async ensure(topics: Iterable<string>): Promise<void> {
    if (!this.creation.enabled) return;
    const unknown = [...new Set(topics)].filter((t) => !this.known.has(t));
    if (unknown.length === 0) return;
    const missing = await this.missing(unknown);
    await Promise.all(missing.map((t) => this.create(t)));
  }

  private create(topic: string): Promise<void> {
    let p = this.creating.get(topic);
    if (!p) {
      p = this.admin()
        .then((a) =>
          a.createTopics({
            topics: [{ topic, numPartitions: this.creation.partitions, replicationFactor: this.creation.replication_factor }],
            waitForLeaders: true,
          }),
        )
        .then(() => void this.known.add(topic))
        .catch((err: unknown) => {
          // Another writer may have created it meanwhile.
          if ((err as { type?: string }).type === 'TOPIC_ALREADY_EXISTS') return void this.known.add(topic);
          throw err;
        })
        .finally(() => this.creating.delete(topic));
      this.creating.set(topic, p);
    }
    return p;
  }
}
