/**
 * Reads a request body with a size limit and a deadline, so that neither a huge body nor a
 * client that trickles one (slowloris) can hold memory or a socket for long.
 */
import type { Readable } from 'node:stream';

/**
 * One timer per request for all its phases (reading the body, then waiting for delivery): each
 * phase says what expiry means for it.
 */
export class Deadline {
  private onExpire: (() => void) | undefined;
  private readonly timer: NodeJS.Timeout;
  expired = false;

  constructor(readonly ms: number) {
    this.timer = setTimeout(() => {
      this.expired = true;
      this.onExpire?.();
    }, ms);
  }

  /** What to do when time runs out (replaces the previous phase's handler). */
  on(fn: (() => void) | undefined): void {
    this.onExpire = fn;
  }

  clear(): void {
    clearTimeout(this.timer);
    this.onExpire = undefined;
  }
}

export class BodyError extends Error {
  constructor(
    readonly status: 400 | 408 | 413,
    message: string,
  ) {
    super(message);
    this.name = 'BodyError';
  }
}

/** Resolves with the whole body; rejects with a BodyError (413 too large, 408 too slow, 400 aborted). */
export function readBody(req: Readable & { headers: Record<string, unknown> }, limit: number, deadline: Deadline): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    return Promise.reject(new BodyError(413, `the request body (${declared} bytes) is larger than ${limit} bytes`));
  }
  if (declared === 0) return Promise.resolve(Buffer.alloc(0));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err?: BodyError): void => {
      if (done) return;
      done = true;
      deadline.on(undefined);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      if (err) {
        // Stop reading what the client still sends; the connection is closed after the answer.
        req.pause();
        reject(err);
      } else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size > limit) return finish(new BodyError(413, `the request body is larger than ${limit} bytes`));
      chunks.push(c);
    };
    const onEnd = (): void => finish();
    const onError = (): void => finish(new BodyError(400, 'the request body could not be read'));
    const onAborted = (): void => finish(new BodyError(400, 'the client aborted the request'));
    if (deadline.expired) return finish(new BodyError(408, `the request body did not arrive within ${deadline.ms}ms`));
    deadline.on(() => finish(new BodyError(408, `the request body did not arrive within ${deadline.ms}ms`)));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}
