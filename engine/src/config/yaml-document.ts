import { CST, Composer, type Document, type LineCounter, Parser, YAMLParseError } from 'yaml';

/**
 * Parses one YAML document keeping source positions, as `yaml.parseDocument` does, in time and
 * memory linear in the text:
 *
 * - `uniqueKeys: false`: the yaml package compares every key of a map with every earlier key
 *   (a 20 000-key map took 24 s); `duplicateKeys` does the check in one pass instead.
 * - The yaml package decodes a double-quoted scalar one character at a time (`res += ch`), which
 *   leaves each value as a tree of V8 cons-strings, ~32 bytes per character, alive until the end
 *   of the parse (a 10 MB config of quoted values peaked at 0.48 GB). One without escapes, line
 *   breaks or `'` means the same as the single-quoted scalar of the same length, which is decoded
 *   with one slice, so the CST is rewritten to that before composing. Offsets do not change; the
 *   scalar's `type` becomes QUOTE_SINGLE (nothing here reads the difference).
 */
export function parseYamlDocument(text: string, lines: LineCounter): Document {
  const parser = new Parser(lines.addNewLine);
  const composer = new Composer({ prettyErrors: false, uniqueKeys: false });
  let doc: Document | undefined;
  const take = (d: Document): void => {
    if (!doc) doc = d;
    else if (!doc.errors.some((e) => e.code === 'MULTIPLE_DOCS')) {
      doc.errors.push(
        new YAMLParseError([d.range?.[0] ?? 0, d.range?.[1] ?? 0], 'MULTIPLE_DOCS', 'a config is one YAML document: remove the second one (after ---)'),
      );
    }
  };
  for (const token of parser.parse(text)) {
    singleQuoteSimpleStrings(token);
    for (const d of composer.next(token)) take(d);
  }
  for (const d of composer.end(true, text.length)) take(d);
  return doc!;
}

const SIMPLE_DOUBLE_QUOTED = /^"[^"\\'\n\r]*"$/;

function singleQuoteSimpleStrings(token: CST.Token): void {
  if (token.type !== 'document') return;
  CST.visit(token, (item) => {
    for (const t of [item.key, item.value]) {
      if (t?.type === 'double-quoted-scalar' && SIMPLE_DOUBLE_QUOTED.test(t.source)) {
        (t as { type: string }).type = 'single-quoted-scalar';
        t.source = `'${t.source.slice(1, -1)}'`;
      }
    }
  });
}
