/** The template of a body transform (classic `template_data`, OAS `transformRequestBody`), read and checked at load. */
import { readFileSync } from 'node:fs';
import { errorMessage } from '@svc/engine';
import { parseTemplate } from '../languages/go-template.js';
import type { Fields } from './fields.js';

/** A transform's template: base64 (`blob`) or a file path (`file`), parsed here so a template svc does not run is refused at load. */
export function templateSource(f: Fields, mode: string, field: string): string {
  let text: string;
  if (mode === 'blob') {
    const raw = f.str(field);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(raw) || raw.length % 4 !== 0) f.fail(field, 'not base64 (a blob template is base64 text)');
    text = Buffer.from(raw, 'base64').toString('utf8');
  } else if (mode === 'file') {
    try {
      text = readFileSync(f.str(field), 'utf8');
    } catch (err) {
      return f.fail(field, `the template file cannot be read: ${errorMessage(err)}`);
    }
  } else return f.fail('template_mode', `expected blob or file, got ${JSON.stringify(mode)}`);
  try {
    parseTemplate(text);
  } catch (err) {
    f.fail(field, `the template cannot be served: ${errorMessage(err)}`);
  }
  return text;
}
