/**
 * Tyk's error answers: `templates/error.json` rendered, `{"error": "..."}` pretty-printed with 4
 * spaces and no final newline, `Content-Type: application/json`. Every refusal the gateway makes
 * goes through {@link tykError} so its wording and shape stay Tyk's.
 */
import type { Answer } from '@svc/engine';

export function tykErrorBody(message: string): string {
  return `{\n    "error": "${message}"\n}`;
}

export function tykError(status: number, message: string, headers: Record<string, string> = {}): Answer {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: Buffer.from(tykErrorBody(message)),
  };
}

/** Go's html/template JSEscapeString, which Tyk applies to an error's message before it goes into the template. */
export function jsEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '\\' || ch === "'" || ch === '"') out += `\\${ch}`;
    else if (ch === '<' || ch === '>' || ch === '&' || ch === '=' || c < 0x20) out += `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += ch;
  }
  return out;
}
