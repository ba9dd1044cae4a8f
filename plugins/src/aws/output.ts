/**
 * What the `aws_*` outputs share: their SDK client, loaded at the first `connect()` and built from
 * the session fields (region, endpoint, credentials; see session.ts), a `write()` before it
 * refused as not connected (the runtime connects again), `close()` releasing it; and, for the
 * outputs that send a request per message (`aws_s3`, `aws_sns`), their `timeout` field and
 * {@link AwsOutput.sendEach}: the requests of a batch at once, each bounded by that timeout, a
 * message that failed failing alone (a BatchError: only it is written again).
 */
import { NotConnectedError, errorMessage, f, type Batch, type ComponentContext, type Logger, type Output } from '@svc/engine';
import { throwFailures } from '../batch-outcome.js';
import { clientOptions, requestError, type ClientOptions, type SessionConfig } from './session.js';

/** `timeout`, as the outputs with a request per message declare it. */
export const timeoutField = f.duration().default('5s').advanced().describe('The maximum period to wait on an upload before abandoning it and reattempting.');

/** The SDK client of one output. */
interface Client {
  destroy(): void;
}

/** How an output makes its client. */
export interface ClientSpec<Sdk, C extends Client> {
  /** Imports the SDK module (once, at the first connect). */
  sdk: () => Promise<Sdk>;
  /** Builds the client from the options of the session fields. */
  client: (sdk: Sdk, opts: ClientOptions) => C;
  /** What the log says once connected. */
  connected: string;
  /** How long one request may take (the output's `timeout`); 0 or absent: the SDK client's own bound. */
  timeoutMs?: number;
}

export abstract class AwsOutput<Sdk, C extends Client> implements Output {
  protected readonly log: Logger;
  /** `<type> output`, the start of every message it logs or fails with. */
  protected readonly component: string;
  /** True once `close()` was called. */
  protected closed = false;
  private readonly opts: ClientOptions;
  private readonly timeoutMs: number;
  private sdk: Sdk | undefined;
  private client: C | undefined;

  constructor(
    conf: SessionConfig,
    ctx: ComponentContext,
    private readonly spec: ClientSpec<Sdk, C>,
  ) {
    this.log = ctx.logger;
    this.component = `${ctx.type} output`;
    this.timeoutMs = spec.timeoutMs ?? 0;
    this.opts = clientOptions(conf, this.component, this.timeoutMs > 0 ? this.timeoutMs : undefined);
  }

  async connect(): Promise<void> {
    if (this.client) return;
    const sdk = (this.sdk ??= await this.spec.sdk());
    this.client = this.spec.client(sdk, this.opts);
    this.log.info(this.spec.connected);
  }

  abstract write(batch: Batch): Promise<void>;

  /** The client and its SDK module; a NotConnectedError before `connect()` or after `close()`. */
  protected connection(): { client: C; sdk: Sdk } {
    const client = this.client;
    const sdk = this.sdk;
    if (!client || !sdk) throw new NotConnectedError(`${this.component}: not connected`);
    return { client, sdk };
  }

  /**
   * Sends every message of `batch` as a request of its own, all at once. `build(i)` makes message
   * i's request (a failure, e.g. an interpolation, fails that message); `send` sends it with the
   * abort signal of the timeout (none when 0); `failed` says what did not happen to it. Resolves
   * once every message was accepted, else throws for the failed ones.
   */
  protected async sendEach<I>(
    batch: Batch,
    build: (i: number) => I,
    send: (input: I, options: { abortSignal?: AbortSignal }) => Promise<unknown>,
    failed: (input: I) => string,
  ): Promise<void> {
    const failures = new Map<number, Error>();
    await Promise.all(
      batch.map(async (_msg, i) => {
        let input: I;
        try {
          input = build(i);
        } catch (err) {
          failures.set(i, new Error(`${this.component}: ${errorMessage(err)}`));
          return;
        }
        try {
          await send(input, this.timeoutMs > 0 ? { abortSignal: AbortSignal.timeout(this.timeoutMs) } : {});
        } catch (err) {
          failures.set(i, requestError(`${this.component}: ${failed(input)}`, err));
        }
      }),
    );
    throwFailures(batch.length, failures);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.client?.destroy();
    this.client = undefined;
  }
}
