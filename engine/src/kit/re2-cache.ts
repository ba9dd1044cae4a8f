/**
 * Regular expressions from configs and requests compiled once per text, on RE2 (re2js, Go's
 * syntax): matching takes time linear in the input whatever the pattern, so a hostile pattern or
 * input cannot hang the process. The cache is bounded (cleared when full), so pattern texts that a
 * request resolves cannot grow it without end.
 */
import { RE2JS } from 're2js';

const compiled = new Map<string, RE2JS | null>();
const MAX = 10_000;

/** The compiled pattern, or null when `text` does not compile. */
export function compiledRe2(text: string): RE2JS | null {
  let re = compiled.get(text);
  if (re === undefined) {
    try {
      re = RE2JS.compile(text);
    } catch {
      re = null;
    }
    if (compiled.size >= MAX) compiled.clear();
    compiled.set(text, re);
  }
  return re;
}
