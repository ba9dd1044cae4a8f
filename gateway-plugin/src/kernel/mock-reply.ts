/**
 * A mock reply as Tyk v5.14.0's VersionCheck writes it (DoMockReply in `gateway/mw_version_check.go`):
 * the entry's headers added, its code, its body; Go's net/http then names the body's type when no
 * header did (`content-sniff.ts`).
 */
import type { Answer } from '@svc/engine';
import type { MockReply } from '../apis/api-spec.js';
import { canonicalHeader } from './context-data.js';
import { detectContentType } from './content-sniff.js';

/** The answer Tyk writes for `reply`. */
export function mockAnswer(reply: MockReply): Answer {
  const body = Buffer.from(reply.body);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.headers)) headers[canonicalHeader(name)] = value;
  if (body.length > 0 && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = detectContentType(body);
  return { status: reply.code, headers, body };
}
