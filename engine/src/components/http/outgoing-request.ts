/** A request as the HTTP clients build it, before authentication signs it and undici sends it. */
export interface OutgoingRequest {
  method: string;
  url: URL;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body?: Buffer;
}

/** Adds credentials to a request (a header, a signature); may fetch a token first. */
export interface RequestAuth {
  apply(req: OutgoingRequest): void | Promise<void>;
}
