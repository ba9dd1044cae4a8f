/**
 * A whole HTTP response read into one buffer of its own (copied from the socket's reads, which a
 * message would otherwise keep alive), straight from undici's dispatch callbacks.
 *
 * `dispatcher.request()` wraps every response in a Readable stream and, for its older handler
 * interface, turns undici's parsed headers back into raw header buffers that it parses again:
 * for the small answers an `http_client` usually gets, that machinery cost more CPU than the
 * exchange itself. This handler keeps the parsed headers and the body chunks as they come, with
 * the size limit checked on the declared length and on every chunk.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';

export interface BufferedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Thrown (by `tooLarge`) when the response is over the limit: its length or its bytes so far. */
export type TooLarge = () => Error;

/** Dispatches `opts` and resolves with the whole response; rejects on a failure or when the body is over `limit`. */
export function dispatchBuffered(dispatcher: Dispatcher, opts: Dispatcher.DispatchOptions, limit: number, tooLarge: TooLarge): Promise<BufferedResponse> {
  return new Promise((resolve, reject) => {
    dispatcher.dispatch(opts, new BufferingHandler(resolve, reject, limit, tooLarge));
  });
}

class BufferingHandler implements Dispatcher.DispatchHandler {
  private status = 0;
  private headers: IncomingHttpHeaders = {};
  /** The body so far: one preallocated buffer when the length was declared, else chunks. */
  private body: Buffer | undefined;
  private chunks: Buffer[] | undefined;
  private size = 0;
  private settled = false;

  constructor(
    private readonly resolve: (r: BufferedResponse) => void,
    private readonly reject: (err: Error) => void,
    private readonly limit: number,
    private readonly tooLarge: TooLarge,
  ) {}

  onRequestStart(): void {}

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.status = statusCode;
    this.headers = headers;
    this.size = 0;
    this.body = undefined;
    this.chunks = undefined;
    const length = headers['content-length'];
    const declared = typeof length === 'string' && /^\d+$/.test(length) ? Number(length) : -1;
    if (declared > this.limit) this.fail(controller, this.tooLarge());
    else if (declared > 0) this.body = Buffer.allocUnsafe(declared);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    const end = this.size + chunk.length;
    if (end > this.limit) return this.fail(controller, this.tooLarge());
    if (this.body !== undefined && end <= this.body.length) chunk.copy(this.body, this.size);
    else {
      // No length, or more bytes than it declared (undici refuses those; kept safe anyway).
      if (this.body !== undefined) {
        this.chunks = [this.body.subarray(0, this.size)];
        this.body = undefined;
      }
      (this.chunks ??= []).push(chunk);
    }
    this.size = end;
  }

  onResponseEnd(): void {
    if (this.settled) return;
    this.settled = true;
    let body: Buffer;
    if (this.body !== undefined) body = this.size === this.body.length ? this.body : this.body.subarray(0, this.size);
    else if (this.chunks === undefined) body = Buffer.alloc(0);
    // A copy even of a lone chunk: a chunk may be a view of a larger socket read that a message
    // would keep alive.
    else body = Buffer.concat(this.chunks, this.size);
    this.resolve({ status: this.status, headers: this.headers, body });
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(err);
  }

  private fail(controller: Dispatcher.DispatchController, err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(err);
    controller.abort(err);
  }
}
