/**
 * What the `nats` and `nats_jetstream` outputs send for a message: its interpolated `subject`,
 * its content as the payload, and headers: the interpolated `headers` map, then the metadata the
 * `metadata` filter selects.
 */
import type { MsgHdrs } from 'nats';
import { compileInterpolation, errorMessage, type Batch, type Interpolation } from '@svc/engine';
import { MetadataFilter } from './headers.js';

export interface Outgoing {
  subject: string;
  data: Uint8Array;
  headers: MsgHdrs | undefined;
}

export class OutgoingMessages {
  private readonly subject: Interpolation;
  private readonly headers: [string, Interpolation][];
  private readonly filter: MetadataFilter;

  constructor(
    conf: { subject: string; headers: Record<string, string>; metadata: { include_prefixes: string[]; include_patterns: string[] } },
    private readonly makeHeaders: () => MsgHdrs,
  ) {
    this.subject = compileInterpolation(conf.subject);
    this.headers = Object.entries(conf.headers).map(([k, v]) => [k, compileInterpolation(v)]);
    this.filter = new MetadataFilter(conf.metadata);
  }

  /** The message at `index` as it is sent; throws naming the field that could not be interpolated. */
  at(batch: Batch, index: number): Outgoing {
    const msg = batch[index]!;
    const ctx = { batch, index };
    let field = 'subject';
    try {
      const subject = this.subject.value(msg, ctx);
      let headers: MsgHdrs | undefined;
      for (const [k, tpl] of this.headers) {
        field = `headers.${k}`;
        (headers ??= this.makeHeaders()).set(k, tpl.value(msg, ctx));
      }
      this.filter.apply(msg, (k, v) => (headers ??= this.makeHeaders()).set(k, v));
      return { subject, data: msg.content, headers };
    } catch (err) {
      throw new Error(`${field}: ${errorMessage(err)}`);
    }
  }
}
