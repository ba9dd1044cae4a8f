/**
 * Reads a request body with a size limit and a deadline, so that neither a huge body nor a
 * client that trickles one (slowloris) can hold memory or a socket for long. The one body reader
 * of every server in the tree (http_server, the gateway and its management API, the hub, the
 * streams API); each caller words the refusal its own way from the {@link BodyError}'s status.
 */
import type { Readable } from 'node:stream';
import { Deadline } from './deadline.js';

/** Why a body was refused, as the HTTP status a server answers it with. */
export type BodyStatus = 400 | 408 | 413;

/** A refused body: 413 too large, 408 too slow, 400 aborted or unreadable. */
export class BodyError extends Error {
  constructor(
    readonly status: BodyStatus,
    message: string,
  ) {
    super(message);
    this.name = 'BodyError';
  }
}

/** A request as the reader needs it: a readable stream with its headers. */
export type BodyStream = Readable & { headers: Record<string, unknown> };

/** The first buffer of a body without a Content-Length (chunked); it doubles as needed. */
const FIRST_CAPACITY = 64 * 1024;

/**
 * Resolves with the whole body; rejects with a BodyError (413 too large, 408 too slow, 400 aborted).
 * `deadline` is the request's own (its next phase may keep it running), or a time in ms that
 * bounds the body alone.
 *
 * Each chunk is copied into one buffer as it arrives and then let go, so the peak is about the
 * body once, not the chunks plus their concatenation: with a Content-Length the buffer is
 * allocated at that size up front (uninitialised memory: its pages become resident only as they
 * are written, so a client that declares a large body and sends little costs little); without
 * one it starts at 64 KiB and doubles (up to `limit`). A body of a single chunk is that chunk.
 */
export function readBody(req: BodyStream, limit: number, deadline: Deadline | number): Promise<Buffer> {
  if (typeof deadline === 'number') {
    const own = new Deadline(deadline);
    const body = readBody(req, limit, own);
    // Its own deadline ends with the body, read or refused.
    body.then(
      () => own.clear(),
      () => own.clear(),
    );
    return body;
  }
  const header = req.headers['content-length'];
  const declared = header === undefined ? NaN : Number(header);
  if (Number.isFinite(declared) && declared > limit) {
    return Promise.reject(new BodyError(413, `the request body (${declared} bytes) is larger than ${limit} bytes`));
  }
  if (declared === 0) return Promise.resolve(Buffer.alloc(0));
  const known = Number.isSafeInteger(declared) && declared > 0;
  return new Promise<Buffer>((resolve, reject) => {
    /** The body so far: `buf[0, size)`. */
    let buf: Buffer | undefined = known ? Buffer.allocUnsafe(declared) : undefined;
    let size = 0;
    let done = false;
    const finish = (err?: BodyError): void => {
      if (done) return;
      done = true;
      deadline.on(undefined);
      const body = buf;
      buf = undefined;
      if (err) {
        // Stop reading what the client still sends; the connection is closed after the answer.
        // (After 'end' the request emits nothing more: its listeners go with it.)
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        req.off('aborted', onAborted);
        req.pause();
        reject(err);
      } else if (body === undefined) resolve(Buffer.alloc(0));
      else resolve(size === body.length ? body : body.subarray(0, size));
    };
    /** `buf` is the lone first chunk of a chunked body: not ours to write into. */
    let borrowed = false;
    const onData = (c: Buffer): void => {
      const end = size + c.length;
      if (end > limit) return finish(new BodyError(413, `the request body is larger than ${limit} bytes`));
      if (buf === undefined) {
        buf = c;
        borrowed = true;
      } else {
        if (borrowed || end > buf.length) grow(end);
        c.copy(buf!, size);
      }
      size = end;
    };
    const grow = (needed: number): void => {
      const old = buf!;
      const next = Buffer.allocUnsafe(Math.min(limit, Math.max(needed, FIRST_CAPACITY, old.length * 2)));
      old.copy(next, 0, 0, size);
      buf = next;
      borrowed = false;
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
