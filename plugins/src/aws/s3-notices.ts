/**
 * The `aws_s3` input's `sqs` mode: S3 event notifications received from an SQS queue, each naming
 * one or more objects (s3-notification.ts). A notification is deleted from the queue only once every
 * object it names was read to its end and delivered; if a delivery fails for good (a nack with
 * `auto_replay_nacks: false`) it is made visible again after `nack_visibility_timeout` instead, so
 * its objects are read again (at least once). A notification that names no object, or cannot be
 * read, is made visible again at once, as Benthos does (a redrive policy on the queue ends that).
 * A process killed mid-way deletes nothing undelivered: the queue hands its notifications out
 * again once their visibility timeout passes.
 */
import type { SQSClient, Message as SqsMessage } from '@aws-sdk/client-sqs';
import { parseDuration, type Logger } from '@svc/engine';
import { Sleeps } from '@svc/engine/kit';
import { isTestEvent, objectsOf, type NotificationPaths, type ObjectRef } from './s3-notification.js';
import { awsError, requestError, type ClientOptions } from './session.js';

export interface NoticesConfig extends NotificationPaths {
  url: string;
  delay_period: string;
  max_messages: number;
  wait_time_seconds: number;
  nack_visibility_timeout: number;
}

/** An object to read, and what to tell its notification once it is done with. */
export interface Target extends ObjectRef {
  /** When the notification was sent (ms since the epoch; 0 when not known). */
  readonly sentAt: number;
  /** Called once: the object was delivered in full (false) or its delivery failed for good (true). */
  done(failed: boolean): void;
}

/** One received notification: how many of its objects are still owed. */
interface Notice {
  readonly receipt: string;
  remaining: number;
  settled: boolean;
}

/** How long to wait before asking again after an empty answer to a short poll (as Benthos). */
const EMPTY_POLL_MS = 500;

export class S3Notices {
  private client: SQSClient | undefined;
  private sdk: typeof import('@aws-sdk/client-sqs') | undefined;
  private readonly delayMs: number;
  private readonly live = new Set<Notice>();
  private readonly requests = new Set<Promise<void>>();
  private readonly sleeps = new Sleeps();

  constructor(
    private readonly conf: NoticesConfig,
    private readonly opts: ClientOptions,
    private readonly defaultBucket: string,
    private readonly log: Logger,
    private readonly component: string,
  ) {
    this.delayMs = conf.delay_period === '' ? 0 : parseDuration(conf.delay_period);
  }

  async connect(): Promise<void> {
    if (this.client) return;
    const sdk = (this.sdk ??= await import('@aws-sdk/client-sqs'));
    const client = new sdk.SQSClient(this.opts);
    try {
      await client.send(new sdk.GetQueueAttributesCommand({ QueueUrl: this.conf.url, AttributeNames: ['QueueArn'] }));
    } catch (err) {
      client.destroy();
      throw requestError(`${this.component}: cannot reach queue ${this.conf.url}`, err);
    }
    this.client = client;
  }

  /** The objects of the notifications one receive brought (none after an empty answer or at close). */
  async receive(): Promise<Target[]> {
    const client = this.client;
    const sdk = this.sdk;
    if (!client || !sdk || this.sleeps.stopped) return [];
    let got: SqsMessage[];
    try {
      const res = await client.send(
        new sdk.ReceiveMessageCommand({
          QueueUrl: this.conf.url,
          MaxNumberOfMessages: this.conf.max_messages,
          WaitTimeSeconds: this.conf.wait_time_seconds,
          MessageSystemAttributeNames: ['SentTimestamp'],
        }),
      );
      got = res.Messages ?? [];
    } catch (err) {
      throw requestError(`${this.component}: cannot receive from ${this.conf.url}`, err);
    }
    if (got.length === 0) {
      if (this.conf.wait_time_seconds === 0) await this.sleeps.sleep(EMPTY_POLL_MS);
      return [];
    }
    const targets: Target[] = [];
    for (const m of got) {
      if (!m.ReceiptHandle) continue;
      let objects: ObjectRef[];
      try {
        objects = objectsOf(m.Body ?? '', this.conf, this.defaultBucket);
      } catch (err) {
        this.log.error(`${this.component}: cannot read the objects of SQS message ${m.MessageId ?? ''}: ${(err as Error).message}`);
        objects = [];
      }
      if (objects.length === 0 && isTestEvent(m.Body ?? '')) {
        this.request(this.delete(m.ReceiptHandle), "delete S3's test event");
        continue;
      }
      if (objects.length === 0) {
        this.log.debug(`${this.component}: SQS message ${m.MessageId ?? ''} names no object; it is made visible again`);
        this.request(this.visible(m.ReceiptHandle, 0), 'make a notification visible again');
        continue;
      }
      const notice: Notice = { receipt: m.ReceiptHandle, remaining: objects.length, settled: false };
      this.live.add(notice);
      const sentAt = Number(m.Attributes?.SentTimestamp ?? 0) || 0;
      for (const o of objects) targets.push({ ...o, sentAt, done: (failed) => this.done(notice, failed) });
    }
    return targets;
  }

  /** Waits until `delay_period` has passed since the target's notification was sent; false at close. */
  async delay(target: Target): Promise<boolean> {
    if (this.delayMs === 0 || target.sentAt === 0) return !this.sleeps.stopped;
    const wait = target.sentAt + this.delayMs - Date.now();
    return wait > 0 ? this.sleeps.sleep(wait) : !this.sleeps.stopped;
  }

  private done(notice: Notice, failed: boolean): void {
    if (notice.settled) return;
    if (!failed && --notice.remaining > 0) return;
    notice.settled = true;
    this.live.delete(notice);
    if (failed) this.request(this.visible(notice.receipt, this.conf.nack_visibility_timeout), 'hand a notification back');
    else this.request(this.delete(notice.receipt), 'delete a delivered notification');
  }

  private async delete(receipt: string): Promise<void> {
    const { client, sdk } = this;
    if (!client || !sdk) return;
    await client.send(new sdk.DeleteMessageCommand({ QueueUrl: this.conf.url, ReceiptHandle: receipt }));
  }

  private async visible(receipt: string, seconds: number): Promise<void> {
    const { client, sdk } = this;
    if (!client || !sdk) return;
    await client.send(new sdk.ChangeMessageVisibilityCommand({ QueueUrl: this.conf.url, ReceiptHandle: receipt, VisibilityTimeout: seconds }));
  }

  /** Runs a request in the background; a failure is logged (the queue hands the notification out again later). */
  private request(p: Promise<void>, what: string): void {
    const tracked = p.catch((err: unknown) => this.log.error(`${this.component}: could not ${what} on ${this.conf.url}: ${awsError(err)}`));
    this.requests.add(tracked);
    void tracked.finally(() => this.requests.delete(tracked));
  }

  /** Hands back every notification not done with (visible after `nack_visibility_timeout`), then closes. */
  async close(): Promise<void> {
    this.sleeps.stop();
    for (const n of this.live) {
      n.settled = true;
      this.request(this.visible(n.receipt, this.conf.nack_visibility_timeout), 'hand a notification back');
    }
    this.live.clear();
    await Promise.all([...this.requests]);
    this.client?.destroy();
    this.client = undefined;
  }
}
