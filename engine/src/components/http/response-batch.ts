/**
 * A response as messages, as Benthos makes them: the body is one message, or with a multipart
 * Content-Type one message per part; each carries `http_status_code` and the response headers
 * that `extract_headers` selects (lower-cased names; several values as an array).
 */
import { Message, type Batch } from '@svc/engine';
import type { ClientResponse } from './http-client.js';
import { responseMeta } from './http-client.js';
import type { MetadataFilter } from './metadata-filter.js';
import { isMultipart, parseMultipart } from './multipart.js';

export function responseBatch(res: ClientResponse, extract: MetadataFilter): Batch {
  const type = res.headers['content-type'];
  const bodies = typeof type === 'string' && isMultipart(type) ? parseMultipart(res.body, type).map((p) => p.body) : [res.body];
  return bodies.map((b) => {
    const m = new Message(b);
    responseMeta(m, res.status, res.headers, extract);
    return m;
  });
}
