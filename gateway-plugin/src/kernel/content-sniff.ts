/**
 * Go's net/http names the type of a body written without a Content-Type (http.DetectContentType
 * of its first 512 bytes): Tyk's mock replies and the upstream answers its reverse proxy relays
 * without one get it. The common cases: HTML, XML, PDF, plain text, else bytes.
 */
const HTML = /^\s*<(!DOCTYPE HTML|HTML|HEAD|SCRIPT|IFRAME|H1|DIV|FONT|TABLE|A|STYLE|TITLE|B|BODY|BR|P|!--)[ >]/i;

/** Signatures Go checks before text (a subset of its table: the binary types seen on APIs). */
const MAGIC: Array<[string, string]> = [
  ['\xEF\xBB\xBF', 'text/plain; charset=utf-8'],
  ['\xFE\xFF', 'text/plain; charset=utf-16be'],
  ['\xFF\xFE', 'text/plain; charset=utf-16le'],
  ['\x89PNG\r\n\x1A\n', 'image/png'],
  ['\xFF\xD8\xFF', 'image/jpeg'],
  ['GIF87a', 'image/gif'],
  ['GIF89a', 'image/gif'],
  ['\x1F\x8B\x08', 'application/x-gzip'],
  ['PK\x03\x04', 'application/zip'],
];

/** Go's http.DetectContentType of a body's first bytes. */
export function detectContentType(body: Buffer): string {
  const head = body.subarray(0, 512).toString('latin1');
  for (const [sig, type] of MAGIC) if (head.startsWith(sig)) return type;
  if (HTML.test(head)) return 'text/html; charset=utf-8';
  if (/^\s*<\?xml/.test(head)) return 'text/xml; charset=utf-8';
  if (head.startsWith('%PDF-')) return 'application/pdf';
  // Go calls text any prefix without binary bytes (control characters other than \t \n \f \r, ESC).
  for (let i = 0; i < Math.min(body.length, 512); i++) {
    const b = body[i]!;
    if (b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f)) return 'application/octet-stream';
  }
  return 'text/plain; charset=utf-8';
}
