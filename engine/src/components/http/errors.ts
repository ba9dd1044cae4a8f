/** The errors of the HTTP family, each with a code and what the status was. */
import { ErrorCode, SvcError } from '@svc/engine';
import type { IncomingHttpHeaders } from 'node:http';

/** A response whose status is not a success by the retry rules (after any retries). */
export class UnexpectedStatusError extends SvcError {
  constructor(
    readonly url: string,
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    readonly body: Buffer,
  ) {
    const snippet = body.length ? `: ${body.subarray(0, 200).toString('utf8')}` : '';
    super(ErrorCode.Write, `${url}: HTTP request returned unexpected response code (${status})${snippet}`);
    this.name = 'UnexpectedStatusError';
  }
}

/** A request that could not be made or answered (connection refused or reset, timeout). */
export class RequestFailedError extends SvcError {
  constructor(url: string, reason: string, options?: { cause?: unknown }) {
    super(ErrorCode.Write, `${url}: ${reason}`, options);
    this.name = 'RequestFailedError';
  }
}

/** A response body over the client's limit. */
export class ResponseTooLargeError extends SvcError {
  constructor(url: string, limit: number) {
    super(ErrorCode.Write, `${url}: the response body is larger than ${limit} bytes`);
    this.name = 'ResponseTooLargeError';
  }
}
