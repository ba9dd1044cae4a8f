/**
 * Reads a request body into memory, bounded in size and time: only for a request a rule of its
 * API needs the body of (split token). Everything else is streamed by the proxy and never held.
 */
import type { IncomingMessage } from 'node:http';

export class BodyError extends Error {
  constructor(
    readonly status: 413 | 408 | 400,
    message: string,
  ) {
    super(message);
  }
}

/** Resolves with the body, or rejects with a BodyError (413 over `max` bytes, 408 after `ms`). */
export function readBody(req: IncomingMessage, max: number, ms: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > max) return Promise.reject(new BodyError(413, `the body is ${declared} bytes, more than ${max}`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err?: BodyError): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (err) {
        // Stop reading: the connection is closed after the answer.
        req.pause();
        reject(err);
      } else resolve(Buffer.concat(chunks, size));
    };
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size > max) return done(new BodyError(413, `the body is more than ${max} bytes`));
      chunks.push(c);
    };
    const onEnd = (): void => done();
    const onError = (): void => done(new BodyError(400, 'the body could not be read'));
    const timer = setTimeout(() => done(new BodyError(408, `the body did not arrive within ${ms} ms`)), ms);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
  });
}
