/**
 * The text formats `unarchive` splits: JSON documents one after the other (Go's json.Decoder
 * reading until EOF) and CSV with a header row (Go's encoding/csv: RFC 4180 quotes, blank lines
 * skipped, every row as long as the header).
 */
import { parseJson } from '@svc/engine';

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** The JSON documents of `text`, in order; throws on one that is not valid JSON. */
export function jsonDocuments(text: string): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && WS.has(text.charCodeAt(i))) i++;
    if (i >= n) break;
    const start = i;
    const c = text[i];
    if (c === '{' || c === '[') {
      let depth = 0;
      let inString = false;
      for (; i < n; i++) {
        const ch = text[i];
        if (inString) {
          if (ch === '\\') i++;
          else if (ch === '"') inString = false;
        } else if (ch === '"') inString = true;
        else if (ch === '{' || ch === '[') depth++;
        else if (ch === '}' || ch === ']') {
          depth--;
          if (depth === 0) {
            i++;
            break;
          }
        }
      }
    } else if (c === '"') {
      for (i++; i < n; i++) {
        if (text[i] === '\\') i++;
        else if (text[i] === '"') {
          i++;
          break;
        }
      }
    } else {
      while (i < n && !WS.has(text.charCodeAt(i)) && !'{["'.includes(text[i]!)) i++;
    }
    out.push(parseJson(text.slice(start, i)));
  }
  return out;
}

/** The rows of a CSV text after its header row, each as an object of strings keyed by the header. */
export function csvObjects(text: string): Record<string, string>[] {
  const rows = csvRows(text);
  const header = rows[0];
  if (header === undefined) return [];
  return rows.slice(1).map((r, k) => {
    if (r.length !== header.length) throw new Error(`failed to parse message as csv: record on line ${k + 2}: wrong number of fields`);
    const o: Record<string, string> = {};
    for (let i = 0; i < header.length; i++) o[header[i]!] = r[i]!;
    return o;
  });
}

function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let line = 1;
  let quoted = false;
  const endRow = () => {
    row.push(field);
    field = '';
    if (!(row.length === 1 && row[0] === '' && !quoted)) rows.push(row);
    row = [];
    quoted = false;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"' && field === '' && !quoted) {
      quoted = true;
      i++;
      for (;;) {
        if (i >= text.length)
          throw new Error(
            `failed to parse message as csv: record on line ${line}; parse error on line ${line}, column ${i + 1}: extraneous or missing " in quoted-field`,
          );
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (text[i] === '\n') line++;
        field += text[i++];
      }
      continue;
    }
    if (c === ',') {
      row.push(field);
      field = '';
      quoted = false;
    } else if (c === '\n') {
      if (field.endsWith('\r')) field = field.slice(0, -1);
      endRow();
      line++;
    } else field += c;
    i++;
  }
  if (field !== '' || row.length > 0) endRow();
  return rows;
}
