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
