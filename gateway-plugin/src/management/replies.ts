/**
 * The management API's reply bodies, exactly as Tyk's gateway API writes them (`gateway/api.go`:
 * `doJSONWrite` with `apiStatusMessage` and `apiModifyKeySuccess`; Go's json.Encoder, compact
 * with a final newline, `Content-Type: application/json`).
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { errorMessage, type Answer, type Logger } from '@svc/engine';
import { jsonAnswer } from '../kernel/answers.js';

/** `apiOk` / `apiError`: `{"status": ..., "message": ...}`. */
export function statusMessage(status: number, message: string, ok = status < 300): Answer {
  return jsonAnswer(status, { status: ok ? 'ok' : 'error', message });
}

/** `apiModifyKeySuccess`: `{"key", "status": "ok", "action"[, "key_hash"]}` (key_hash omitted when empty). */
export function modified(key: string, action: 'added' | 'modified' | 'deleted', keyHash = ''): Answer {
  const body: Record<string, string> = { key, status: 'ok', action };
  if (keyHash) body['key_hash'] = keyHash;
  return jsonAnswer(200, body);
}

export const MALFORMED = statusMessage(400, 'Request malformed');
export const METHOD_NOT_SUPPORTED = statusMessage(405, 'Method not supported');
/** gorilla/mux's own 404 for a path under the control API that no route takes. */
export const NO_ROUTE: Answer = { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: Buffer.from('404 page not found\n') };

/**
 * The deepest nesting of arrays and objects a management body may have. Go's decoder stops at
 * 10,000; a value nested that deep here would overflow the stack of whatever walks it next
 * (JSON.stringify, structuredClone) and answer 500, and no session, policy or API is near 100.
 */
const MAX_JSON_DEPTH = 512;

/** Parses a JSON body; undefined when it is not JSON or nests deeper than MAX_JSON_DEPTH (Tyk: "Request malformed"). */
export function parseJson(body: Buffer): unknown {
  const text = body.toString('utf8');
  if (jsonDepth(text) > MAX_JSON_DEPTH) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** How deep arrays and objects nest in `text` (strings skipped), without parsing it. */
function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote, over escapes.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** True for an id usable as a file name (Tyk's `sanitize.ValidatePathComponent`). */
export function validPathComponent(id: string): boolean {
  return id !== '' && id !== '.' && id !== '..' && !/[/\\\0]/.test(id);
}

/** Deletes the file an API or a policy was written to, answering as Tyk's delete handlers do. */
export async function deleteDefinition(file: string, id: string, log: Logger): Promise<Answer> {
  if (!existsSync(file)) return statusMessage(500, 'Delete failed');
  try {
    await rm(file);
  } catch (err) {
    log.warn(`Delete failed: ${errorMessage(err)}`);
    return statusMessage(500, 'Delete failed');
  }
  return modified(id, 'deleted');
}
