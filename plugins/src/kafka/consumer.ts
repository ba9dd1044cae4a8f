/**
 * The kafkajs side of the `logbus` input: connects (checking brokers, credentials, topics and
 * partitions first, so that each mistake gets its own clear error), joins the group, buffers
 * fetched batches per partition with back-pressure, follows rebalances, and commits the offsets
 * the input's checkpoints allow.
 *
 * Offsets: kafkajs runs with `autoCommit: false` and `eachBatchAutoResolve: false`. A fetched
 * batch is resolved as soon as it is buffered (that only moves kafkajs' fetch position); what is
 * committed, every `commit_period`, is each partition's checkpoint: the highest offset below which
 * every message was acked. A commit counts as done only when kafkajs reports it (a consumer
 * between generations drops commits silently), and a partition is never committed below what
 * this consumer committed for it before.
 *
 * Rebalances: kafkajs has no revoke callback. On GROUP_JOIN the partitions no longer assigned
 * are revoked: what was fetched and not handed out is dropped, in-flight messages get
 * `max_processing_period` to be acked, then that commit point is committed once (with the new
 * generation; the classic group protocol accepts it, and it never passes an unacked message, so
 * at worst the new owner reads some messages twice). Partitions kept across a rebalance would be
 * fetched again from the committed offset: they are sought to where this input stopped buffering
 * instead, and records before that are skipped.
 */
import { randomUUID } from 'node:crypto';
import { NotConnectedError, errorMessage, parseDuration, type Logger } from '@svc/engine';
import type { Admin, Consumer, EachBatchPayload, IMemberAssignment, Kafka, KafkaMessage } from 'kafkajs';
import { expandList, kafkaClient } from './client.js';
import { explicitAssigner } from './assignment.js';
import type { InputConfig } from './input-spec.js';
import { topicNames, type TopicSelection } from './input-topics.js';
import { PartitionFeed, partitionKey } from './consumer-partition.js';
import { ConnectionSockets } from './consumer-sockets.js';
import type { LagGauge } from './lag.js';
import type { StallWatch } from './stall.js';

/** How long connect() waits for the first fetch after joining (it then returns anyway). */
const FIRST_FETCH_MS = 10_000;
/** Connect-time checks fail fast (their own client): the runtime retries connect() with its own back-off. */
const ADMIN_RETRY = { retries: 1, initialRetryTime: 100, maxRetryTime: 1000 };
/** A final commit on close or revoke does not wait longer than this for a broker that is gone. */
const COMMIT_WAIT_MS = 5_000;

export interface ConsumerOptions {
  conf: InputConfig;
  topics: TopicSelection;
  log: Logger;
  /** Names the component in errors: `kafka input root.input`. */
  who: string;
  lag: LagGauge;
  stalls: StallWatch;
  /** Called when there may be something new to read (records buffered, a consumer failure). */
  wake: () => void;
}

/** kafkajs' own test: the group is rebalancing and this member must rejoin. */
function isRebalancing(err: unknown): boolean {
  const type = (err as { type?: string } | undefined)?.type;
  return type === 'REBALANCE_IN_PROGRESS' || type === 'NOT_COORDINATOR_FOR_GROUP' || type === 'ILLEGAL_GENERATION';
}

function describeConnectError(err: unknown, conf: InputConfig): string {
  const e = err as { name?: string; message?: string; cause?: unknown };
  const msg = errorMessage(err);
  if (e.name === 'KafkaJSSASLAuthenticationError' || /SASL|authentication/i.test(msg)) {
    const who = conf.sasl.mechanism === 'OAUTHBEARER' ? 'with the token' : `as user "${conf.sasl.user}"`;
    const check = conf.sasl.mechanism === 'OAUTHBEARER' ? 'sasl.access_token' : 'sasl.user and sasl.password';
    return `SASL ${conf.sasl.mechanism} authentication ${who} failed: ${msg.replace(/^SASL \S+ authentication failed: /, '')} (check ${check})`;
  }
  if (e.name === 'KafkaJSNumberOfRetriesExceeded' && e.cause !== undefined) return describeConnectError(e.cause, conf);
  return msg;
}

export class GroupConsumer {
  /** Assigned partitions by key. */
  readonly feeds = new Map<string, PartitionFeed>();
  /** The assigned partitions, in assignment order (the reader goes round them). */
  active: PartitionFeed[] = [];
  /** Set when the consumer stopped for good: the input reports it as a lost connection. */
  failure: Error | undefined;
  private readonly revoked = new Set<PartitionFeed>();
  /** The highest offset committed per partition key (confirmed by kafkajs), for this connection. */
  private readonly committed = new Map<string, number>();
  private consumer: Consumer | undefined;
  /** The sockets of the current connection's clients (the connect-time checks' and the consumer's). */
  private sockets: ConnectionSockets | undefined;
  private readonly storesOffsets: boolean;
  private readonly cap: number;
  private readonly limit: number;
  private readonly batching: boolean;
  private readonly heartbeatMs: number;
  private readonly processingMs: number;
  private readonly rebalanceMs: number;
  private commitTimer: NodeJS.Timeout | undefined;
  private stallTimer: NodeJS.Timeout | undefined;
  /** Reads end and committed offsets for the stall checks (a client of the current connection). */
  private watcher: Admin | undefined;
  private looking = false;
  private watching = false;
  private groupId = '';
  private committing: Promise<void> = Promise.resolve();
  private commitsQueued = 0;
  private commitSeen = false;
  /** Between a detected rebalance and the new assignment: fetch handlers stop waiting. */
  private rebalancing = false;
  private closed = false;
  private readonly removeListeners: Array<() => void> = [];

  constructor(
    private readonly o: ConsumerOptions,
    batching: boolean,
  ) {
    const c = o.conf;
    this.storesOffsets = c.consumer_group !== '';
    this.cap = c.fetch_buffer_cap;
    this.limit = c.checkpoint_limit;
    this.batching = batching;
    this.heartbeatMs = parseDuration(c.group.heartbeat_interval);
    this.processingMs = parseDuration(c.max_processing_period);
    this.rebalanceMs = parseDuration(c.group.rebalance_timeout);
  }

  /** Connects and joins; throws a clear error naming the component when it cannot. */
  async connect(): Promise<void> {
    if (this.consumer !== undefined && this.failure === undefined) return;
    await this.teardown();
    this.failure = undefined;
    const { conf, who, log } = this.o;
    if (this.closed) throw new NotConnectedError(`${who}: closed`);
    const sockets = new ConnectionSockets();
    this.sockets = sockets;
    const partitions = await this.check(kafkaClient(conf, log, { retry: ADMIN_RETRY, socketFactory: sockets.factory }));
    // Closed while checking: close() found no consumer to stop, so nothing may be started now.
    if (this.closed) {
      await this.teardown();
      throw new NotConnectedError(`${who}: closed`);
    }
    const kafka = kafkaClient(conf, log, { socketFactory: sockets.factory });
    const groupId = conf.consumer_group || `${conf.client_id}-explicit-${randomUUID()}`;
    this.groupId = groupId;
    this.watcher = kafkaClient(conf, log, { retry: ADMIN_RETRY, socketFactory: sockets.factory }).admin();
    const consumer = kafka.consumer({
      groupId,
      sessionTimeout: parseDuration(conf.group.session_timeout),
      heartbeatInterval: this.heartbeatMs,
      rebalanceTimeout: this.rebalanceMs,
      rackId: conf.rack_id || undefined,
      // Sarama's (and so Benthos') defaults: read uncommitted records, wait at most 500ms per fetch.
      readUncommitted: true,
      maxWaitTimeInMs: 500,
      allowAutoTopicCreation: false,
      ...(this.o.topics.explicit.size > 0 ? { partitionAssigners: [explicitAssigner(this.o.topics.explicit)] } : {}),
    });
    this.consumer = consumer;
    const ev = consumer.events;
    let firstFetch!: () => void;
    const fetched = new Promise<void>((r) => (firstFetch = r));
    this.removeListeners.push(
      consumer.on(ev.GROUP_JOIN, (e) => this.joined(e.payload.memberAssignment)),
      consumer.on(ev.REBALANCING, () => this.rebalanceDetected()),
      consumer.on(ev.CRASH, (e) => {
        this.crashed(e.payload.error, e.payload.restart);
        firstFetch();
      }),
      consumer.on(ev.FETCH, () => firstFetch()),
      consumer.on(ev.COMMIT_OFFSETS, () => (this.commitSeen = true)),
    );
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: topicNames(this.o.topics), fromBeginning: conf.start_from_oldest });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: Math.max(1, partitions),
        eachBatch: (p) => this.eachBatch(p),
      });
    } catch (err) {
      await this.teardown();
      throw new NotConnectedError(`${who}: cannot start consuming: ${describeConnectError(err, conf)}`, { cause: err });
    }
    // Joined (run() returns after the first join); the first fetch resolves the start offsets.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([fetched, new Promise<void>((r) => (timer = setTimeout(r, FIRST_FETCH_MS)))]);
    clearTimeout(timer);
    if (this.failure !== undefined) {
      const err = this.failure;
      await this.teardown();
      throw new NotConnectedError(`${who}: the consumer stopped while joining group "${groupId}": ${describeConnectError(err, conf)}`, { cause: err });
    }
    // Closed while joining: close() stopped this consumer; no commit timer may outlive it.
    if (this.closed || this.consumer !== consumer) {
      await this.teardown();
      throw new NotConnectedError(`${who}: closed`);
    }
    if (this.storesOffsets) {
      // A tick while a commit is still under way (a broker that is slow or gone) is skipped, not queued.
      this.commitTimer = setInterval(() => this.commitsQueued === 0 && void this.commit(), Math.max(1, parseDuration(conf.commit_period)));
    }
    this.stallTimer = setInterval(() => !this.looking && void this.lookForStalls(), Math.max(1, parseDuration(conf.stall_check_period)));
  }

  /** One stall check: the brokers' end offsets (and, for partitions that fetched nothing yet, where they start) against each feed. */
  private async lookForStalls(): Promise<void> {
    const admin = this.watcher;
    if (admin === undefined) return;
    this.looking = true;
    try {
      if (!this.watching) {
        await admin.connect();
        this.watching = true;
      }
      const feeds = this.active;
      const topics = [...new Set(feeds.map((f) => f.topic))];
      const ends = new Map<string, number>();
      const starts = new Map<string, number>();
      for (const topic of topics) {
        for (const p of await admin.fetchTopicOffsets(topic)) {
          ends.set(partitionKey(topic, p.partition), Number(p.high));
          starts.set(partitionKey(topic, p.partition), Number(this.o.conf.start_from_oldest ? p.low : p.high));
        }
      }
      if (this.storesOffsets && feeds.some((f) => f.nextOffset < 0)) {
        for (const t of await admin.fetchOffsets({ groupId: this.groupId, topics })) {
          for (const p of t.partitions) if (Number(p.offset) >= 0) starts.set(partitionKey(t.topic, p.partition), Number(p.offset));
        }
      }
      if (this.watcher === admin) this.o.stalls.look(feeds, ends, (f) => starts.get(f.key));
    } catch (err) {
      this.o.log.debug(`Checking for stalled partitions failed: ${errorMessage(err)}`);
    } finally {
      this.looking = false;
    }
  }

  /**
   * The broker-side checks before joining: the brokers answer, the credentials work, every topic
   * exists, every explicit partition exists. Returns how many partitions may be consumed at once.
   */
  private async check(kafka: Kafka): Promise<number> {
    const { conf, who, topics } = this.o;
    const admin = kafka.admin();
    try {
      try {
        await admin.connect();
      } catch (err) {
        throw new NotConnectedError(`${who}: cannot connect to ${expandList(conf.addresses).join(', ')}: ${describeConnectError(err, conf)}`, { cause: err });
      }
      const names = topicNames(topics);
      const existing = new Set(await admin.listTopics());
      const missing = names.filter((t) => !existing.has(t));
      if (missing.length > 0) {
        throw new NotConnectedError(
          `${who}: topic${missing.length > 1 ? 's' : ''} ${missing.map((t) => `"${t}"`).join(', ')} ${missing.length > 1 ? 'do' : 'does'} not exist; ` +
            'this input does not create topics: create it or correct the name',
        );
      }
      const meta = await admin.fetchTopicMetadata({ topics: names });
      let total = 0;
      for (const t of meta.topics) {
        const ids = new Set(t.partitions.map((p) => p.partitionId));
        const wanted = topics.explicit.get(t.name);
        if (wanted === undefined) {
          total += ids.size;
          continue;
        }
        const absent = wanted.filter((p) => !ids.has(p));
        if (absent.length > 0) {
          throw new NotConnectedError(
            `${who}: topic "${t.name}" has ${ids.size} partition${ids.size === 1 ? '' : 's'} (0-${ids.size - 1}); ` +
              `partition${absent.length > 1 ? 's' : ''} ${absent.join(', ')} ${absent.length > 1 ? 'do' : 'does'} not exist`,
          );
        }
        total += wanted.length;
      }
      return total;
    } catch (err) {
      if (err instanceof NotConnectedError) throw err;
      throw new NotConnectedError(`${who}: cannot read topic metadata: ${describeConnectError(err, conf)}`, { cause: err });
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  private feed(topic: string, partition: number): PartitionFeed {
    const key = partitionKey(topic, partition);
    let f = this.feeds.get(key);
    if (f === undefined) {
      f = new PartitionFeed(topic, partition, this.limit, this.batching, this.o.lag.labels(topic, String(partition)));
      this.feeds.set(key, f);
      this.active = [...this.active, f];
    }
    return f;
  }

  private async eachBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    // Not `rebalancing`: a report that no new assignment follows (a late heartbeat of a generation
    // kafkajs already left) would stop every fetch for good; kafkajs' isStale() says what is revoked.
    if (this.closed) return;
    const f = this.feed(batch.topic, batch.partition);
    const records: KafkaMessage[] = batch.messages;
    // Skip what this input already holds: kafkajs fetches a kept partition again from the
    // committed offset after a rebalance when the seek came too late.
    let from = 0;
    if (f.nextOffset >= 0) while (from < records.length && Number(records[from]!.offset) < f.nextOffset) from++;
    while (f.full(this.cap)) {
      // Back-pressure: kafkajs fetches again only when every handler of this fetch returned.
      if (this.closed || f.revoked || !isRunning() || isStale()) return;
      // A rebalance reported: heartbeat now rather than wait (it throws while one is under way).
      if (!this.rebalancing) await f.waitForSpace(this.heartbeatMs);
      try {
        await heartbeat();
        // The member's generation is valid: no rebalance is under way for it.
        this.rebalancing = false;
      } catch (err) {
        // A rebalance: commit what is acked while this generation is still valid, then let kafkajs rejoin.
        if (isRebalancing(err)) this.rebalanceDetected();
        throw err;
      }
    }
    if (this.closed || f.revoked || isStale()) return;
    const last = records[records.length - 1]!.offset;
    f.highWatermark = Number(batch.highWatermark);
    f.push(records, from, Number(last) + 1);
    resolveOffset(last);
    this.o.wake();
  }

  private rebalanceDetected(): void {
    if (this.rebalancing) return;
    this.rebalancing = true;
    for (const f of this.active) f.interrupt();
    void this.commit();
  }

  /** The new assignment: revoke what is gone, keep the rest where this input stopped. */
  private joined(assignment: IMemberAssignment): void {
    this.rebalancing = false;
    const assigned = new Set<string>();
    for (const [topic, parts] of Object.entries(assignment)) for (const p of parts) assigned.add(partitionKey(topic, p));
    for (const f of [...this.feeds.values()]) if (!assigned.has(f.key)) this.revoke(f);
    for (const [topic, parts] of Object.entries(assignment)) {
      for (const p of parts) {
        const f = this.feed(topic, p);
        if (f.nextOffset >= 0) {
          try {
            this.consumer?.seek({ topic, partition: p, offset: String(f.nextOffset) });
          } catch (err) {
            this.o.log.debug(`Could not seek ${topic}/${p} to ${f.nextOffset}: ${errorMessage(err)}`);
          }
        }
      }
    }
    const summary = Object.entries(assignment)
      .map(([t, ps]) => `${t}:${[...ps].sort((a, b) => a - b).join(',')}`)
      .join(' ');
    this.o.log.info(`Joined the consumer group, consuming ${summary || 'no partitions'}`);
    this.o.wake();
  }

  /**
   * Gives a partition up: drops what was not handed out, lets in-flight messages be acked for
   * `max_processing_period`, then commits that point once.
   */
  private revoke(f: PartitionFeed): void {
    if (f.revoked) return;
    f.revoked = true;
    f.revokedAt = Date.now();
    f.drop();
    if (this.feeds.get(f.key) === f) this.feeds.delete(f.key);
    this.active = this.active.filter((a) => a !== f);
    if (!this.storesOffsets) return;
    this.revoked.add(f);
    void f.drained(this.processingMs).then(() => {
      f.finalOffset = f.checkpoint.committable;
      if (f.finalOffset > this.committedOf(f)) void this.commit();
      else this.revoked.delete(f);
    });
  }

  private crashed(error: Error, restart: boolean): void {
    this.rebalancing = false;
    // The member left the group: whatever it held may be someone else's now.
    for (const f of [...this.feeds.values()]) this.revoke(f);
    if (restart) {
      this.o.log.warn(`${this.o.who}: the consumer failed and restarts: ${errorMessage(error)}`);
      return;
    }
    this.failure = error;
    this.o.wake();
  }

  /** Commits every partition's checkpoint that moved (one commit at a time, after any under way). */
  commit(): Promise<void> {
    this.commitsQueued++;
    this.committing = this.committing
      .then(() => this.commitNow())
      .catch((err: unknown) => this.o.log.warn(`Committing offsets failed: ${errorMessage(err)}`))
      .finally(() => this.commitsQueued--);
    return this.committing;
  }

  /** The highest offset this consumer committed for `f`'s partition (-1 when none). */
  private committedOf(f: PartitionFeed): number {
    return this.committed.get(f.key) ?? -1;
  }

  /**
   * One commit request: per partition the highest offset any of its feeds may commit (a revoked
   * feed's final point and, when the partition came back, the current feed's), and never one at or
   * below what was committed before, so a late final commit cannot move a partition back.
   */
  private async commitNow(): Promise<void> {
    const consumer = this.consumer;
    if (consumer === undefined || !this.storesOffsets) return;
    const due = new Map<string, { topic: string; partition: number; offset: number }>();
    const want = (f: PartitionFeed, offset: number) => {
      if (offset <= this.committedOf(f)) return;
      const d = due.get(f.key);
      if (d === undefined) due.set(f.key, { topic: f.topic, partition: f.partition, offset });
      else if (offset > d.offset) d.offset = offset;
    };
    for (const f of this.feeds.values()) want(f, f.checkpoint.committable);
    const now = Date.now();
    for (const f of this.revoked) {
      if (now - f.revokedAt > this.rebalanceMs) this.revoked.delete(f);
      else if (f.finalOffset !== undefined) want(f, f.finalOffset);
    }
    if (due.size === 0) return;
    this.commitSeen = false;
    try {
      await consumer.commitOffsets([...due.values()].map((d) => ({ topic: d.topic, partition: d.partition, offset: String(d.offset) })));
    } catch (err) {
      this.o.log.debug(`Committing offsets failed, retrying at the next commit: ${errorMessage(err)}`);
      return;
    }
    // kafkajs drops commits while it is between generations without saying so.
    if (!this.commitSeen) return;
    for (const [key, d] of due) if (d.offset > (this.committed.get(key) ?? -1)) this.committed.set(key, d.offset);
    for (const f of this.revoked) if (f.finalOffset !== undefined && f.finalOffset <= this.committedOf(f)) this.revoked.delete(f);
  }

  /** Wakes the fetch handler of `f` when its buffer has room again. */
  spaceFreed(f: PartitionFeed): void {
    f.spaceFreed(this.cap);
  }

  /**
   * Stops: drops what was not handed out, waits up to `waitMs` for in-flight messages to be
   * acked, commits, leaves the group.
   */
  async close(waitMs: number): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.commitTimer);
    clearInterval(this.stallTimer);
    const consumer = this.consumer;
    if (consumer === undefined) {
      // Never connected, or a connect() under way: it sees `closed`; the sockets go now.
      await this.teardown();
      return;
    }
    const feeds = [...this.feeds.values()];
    try {
      // No more fetching while the last acks come in.
      consumer.pause(topicNames(this.o.topics).map((topic) => ({ topic })));
    } catch {
      // not running (it failed): nothing fetches
    }
    for (const f of feeds) f.drop();
    await Promise.all(feeds.map((f) => f.drained(waitMs)));
    await this.finalCommit();
    await this.teardown();
  }

  private async finalCommit(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.commit(), new Promise<void>((r) => (timer = setTimeout(r, COMMIT_WAIT_MS)))]);
    clearTimeout(timer);
  }

  private async teardown(): Promise<void> {
    clearInterval(this.commitTimer);
    this.commitTimer = undefined;
    clearInterval(this.stallTimer);
    this.stallTimer = undefined;
    const watcher = this.watcher;
    this.watcher = undefined;
    this.watching = false;
    await watcher?.disconnect().catch(() => undefined);
    this.o.stalls.clear(this.feeds.values());
    for (const remove of this.removeListeners.splice(0)) remove();
    const consumer = this.consumer;
    this.consumer = undefined;
    for (const f of [...this.feeds.values()]) {
      f.drop();
      f.revoked = true;
    }
    this.feeds.clear();
    this.active = [];
    this.revoked.clear();
    this.committed.clear();
    const sockets = this.sockets;
    this.sockets = undefined;
    if (consumer !== undefined) {
      // kafkajs emits a crash that restarts the consumer only after its own disconnect, and then
      // arms the restart timer: when that disconnect was under way as this one began, this one
      // misses the timer, and the consumer would join again. Stop it once more, after the timer is set.
      consumer.on(consumer.events.CRASH, (e) => {
        if (e.payload.restart) setImmediate(() => void consumer.disconnect().catch(() => undefined));
      });
      await consumer.disconnect().catch((err: unknown) => this.o.log.debug(`Disconnect failed: ${errorMessage(err)}`));
    }
    // What kafkajs left connected (a crashed generation's group coordinator reconnects through
    // it after the client forgot it) is closed here, and nothing of this client connects again.
    sockets?.close();
  }
}
