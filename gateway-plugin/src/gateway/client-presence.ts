/**
 * A gateway request's client as the runtime's {@link Requester}: gone once its response closed
 * without being finished (the client closed its connection). The runtime then frees the request's
 * slot at once instead of waiting on the processors (a JWKS or identity provider that trickles).
 */
import type { ServerResponse } from 'node:http';
import type { Requester } from '@svc/engine';

export class ClientPresence implements Requester {
  constructor(private readonly res: ServerResponse) {}

  get gone(): boolean {
    return this.res.destroyed && !this.res.writableFinished;
  }

  whenGone(then: () => void): void {
    this.res.once('close', () => {
      if (!this.res.writableFinished) then();
    });
  }
}
