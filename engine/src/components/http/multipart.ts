/**
 * Multipart bodies (RFC 1341 / RFC 2046): parsing a body into its parts (each becomes a message
 * of one batch) and building one from parts. The parser works on the whole, already bounded
 * body and refuses anything malformed rather than guessing.
 */
import { randomBytes } from 'node:crypto';
import { compileInterpolation, type Batch, type Interpolation } from '@svc/engine';

export interface Part {
  /** Lower-cased header names. */
  headers: Record<string, string>;
  body: Buffer;
}

export class MultipartError extends Error {
  constructor(message: string) {
    super(`malformed multipart body: ${message}`);
    this.name = 'MultipartError';
  }
}

/** At most this many parts per body: each becomes a message. */
export const MAX_PARTS = 10_000;

/** Splits a Content-Type into its lower-cased media type and its parameters (RFC 2045 §5.1). */
export function parseContentType(value: string | undefined): { type: string; params: Record<string, string> } {
  if (!value) return { type: '', params: {} };
  const semi = value.indexOf(';');
  const type = (semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase();
  const params: Record<string, string> = {};
  if (semi >= 0) {
    const re = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;]*))/g;
    let m: RegExpExecArray | null;
    const rest = value.slice(semi);
    while ((m = re.exec(rest)) !== null) params[m[1]!.toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!;
  }
  return { type, params };
}

export function isMultipart(contentType: string | undefined): boolean {
  return parseContentType(contentType).type.startsWith('multipart/');
}

function parseHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (block === '') return headers;
  // Folded header lines (a line starting with white space continues the previous one).
  for (const line of block.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MultipartError(`part header line without a name: "${line.slice(0, 60)}"`);
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** The parts of a multipart body; throws MultipartError when it is malformed. */
export function parseMultipart(body: Buffer, contentType: string): Part[] {
  const boundary = parseContentType(contentType).params['boundary'];
  if (!boundary) throw new MultipartError('the Content-Type has no boundary');
  if (boundary.length > 70) throw new MultipartError('the boundary is longer than 70 characters');
  const dash = Buffer.from(`--${boundary}`);
  const delim = Buffer.from(`\r\n--${boundary}`);
  // The first delimiter may open the body (no CRLF before it); anything before it is preamble.
  let pos: number;
  if (body.subarray(0, dash.length).equals(dash)) pos = dash.length;
  else {
    const at = body.indexOf(delim);
    if (at < 0) throw new MultipartError('no boundary delimiter found');
    pos = at + delim.length;
  }
  const parts: Part[] = [];
  for (;;) {
    // After a delimiter: "--" closes, else optional white space and CRLF start a part.
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return parts;
    while (body[pos] === 0x20 || body[pos] === 0x09) pos++;
    if (body[pos] !== 0x0d || body[pos + 1] !== 0x0a) throw new MultipartError('a boundary delimiter is not followed by CRLF');
    pos += 2;
    const next = body.indexOf(delim, pos - 2);
    if (next < 0) throw new MultipartError('the closing boundary delimiter is missing');
    const part = body.subarray(pos, Math.max(pos, next));
    let headerEnd: number;
    let headers: Record<string, string>;
    if (part[0] === 0x0d && part[1] === 0x0a) {
      headerEnd = 2;
      headers = {};
    } else {
      const sep = part.indexOf('\r\n\r\n');
      if (sep < 0) throw new MultipartError('a part has no blank line after its headers');
      headers = parseHeaders(part.subarray(0, sep).toString('latin1'));
      headerEnd = sep + 4;
    }
    parts.push({ headers, body: part.subarray(headerEnd) });
    if (parts.length > MAX_PARTS) throw new MultipartError(`more than ${MAX_PARTS} parts`);
    pos = next + delim.length;
  }
}

/** A boundary that cannot occur by chance in the parts. */
export function newBoundary(): string {
  return randomBytes(24).toString('hex');
}

/** Builds a multipart body of `subtype` (`mixed`, `form-data`) from parts. */
export function buildMultipart(parts: Part[], subtype = 'mixed', boundary = newBoundary()): { contentType: string; body: Buffer } {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\n`;
    for (const [k, v] of Object.entries(p.headers)) head += `${canonicalHeader(k)}: ${v}\r\n`;
    chunks.push(Buffer.from(head + '\r\n', 'latin1'), p.body, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/${subtype}; boundary=${boundary}`, body: Buffer.concat(chunks) };
}

/** Go's canonical MIME header form: `content-type` → `Content-Type`. */
export function canonicalHeader(name: string): string {
  let out = '';
  let upper = true;
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    out += upper ? c.toUpperCase() : c.toLowerCase();
    upper = c === '-';
  }
  return out;
}

/** The Content-Type of each part of a batch sent as multipart: the `headers` Content-Type, interpolated per message. */
export function partContentType(headers: Record<string, string>): Interpolation | undefined {
  const ct = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  return ct === undefined ? undefined : compileInterpolation(ct);
}

/**
 * A batch as one multipart body (`batch_as_multipart`): a part per message, in batch order. The
 * `http` processor sends `form-data` (as Benthos v4.51's client does); the output `mixed`.
 */
export function batchMultipartBody(batch: Batch, partType: Interpolation | undefined, subtype: 'mixed' | 'form-data'): { body: Buffer; contentType: string } {
  const parts: Part[] = batch.map((m, index) => ({
    headers: { 'content-type': partType ? partType.value(m, { batch, index }) : 'application/octet-stream' },
    body: m.content,
  }));
  return buildMultipart(parts, subtype);
}
