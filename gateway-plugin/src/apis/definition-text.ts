/** A definition file's text as a value: JSON, or YAML for `.yaml`/`.yml`, errors with line and column. */
import { parseDocument } from 'yaml';
import { DefinitionError } from './definition-error.js';
import { jsonErrorOffset } from './json-error-offset.js';

/** JSON.parse, its error placed at a line and column (V8 says only `at position N`). */
export function parseJsonText(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    const at = /at position (\d+)/.exec(reason);
    const offset = at ? Number(at[1]) : jsonErrorOffset(text);
    const { line, col } = lineColumn(text, offset);
    // V8 quotes the text around the error in some messages: the position says it, and quoting
    // a config file could print a secret.
    const detail = reason
      .replace(/ in JSON at position \d+.*$/s, '')
      .replace(/, \.\.\.?".*$/s, '')
      .replace(/ at position \d+.*$/s, '');
    throw new DefinitionError(file, '', `invalid JSON at line ${line} column ${col}: ${detail}`, { line, col });
  }
}

export function parseYamlText(text: string, file: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  const first = doc.errors[0];
  if (first) {
    const pos = first.linePos?.[0];
    const line = pos?.line ?? 0;
    const col = pos?.col ?? 0;
    throw new DefinitionError(file, '', `invalid YAML at line ${line} column ${col}: ${first.message.split('\n')[0]}`, { line, col });
  }
  try {
    // Alias expansion is bounded (a "billion laughs" document is refused, not expanded).
    return doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw new DefinitionError(file, '', `invalid YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** By the file's name: `.yaml`/`.yml` as YAML, anything else as JSON. */
export function parseDefinitionText(text: string, file: string): unknown {
  return /\.ya?ml$/i.test(file) ? parseYamlText(text, file) : parseJsonText(text, file);
}

function lineColumn(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, col: end - start + 1 };
}
