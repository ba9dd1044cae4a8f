/**
 * `-e FILE` (Benthos' `--env-file`): dotenv files whose variables are set in the environment
 * before any config is read, so `${VAR}` in the config sees them; a later file overrides an
 * earlier one and both override the process environment, as Benthos does. Paths may be globs.
 * Format: `KEY=value`, `KEY="quoted \n value"`, `KEY='raw'`, `KEY="""triple"""`, `# comments`.
 */
import { readFile } from 'node:fs/promises';
import { expandGlobs } from '../components/io/glob.js';
import { ErrorCode, SvcError, errorMessage } from '../errors.js';

/** Parses a dotenv text; throws naming the line of a malformed assignment. */
export function parseDotEnv(text: string, file: string): Record<string, string> {
  const vars: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const m = /^([^=\s#]+)[ \t]*=[ \t]*(.*)$/.exec(trimmed);
    if (!m) throw new SvcError(ErrorCode.ConfigEnv, `failed to parse dotenv file: ${file}:${i + 1}: expected KEY=value`);
    const key = m[1]!;
    let rest = m[2]!;
    let value: string;
    if (rest.startsWith('"""')) {
      // A triple-quoted value may span lines.
      let body = rest.slice(3);
      while (!body.includes('"""')) {
        if (++i >= lines.length) throw new SvcError(ErrorCode.ConfigEnv, `failed to parse dotenv file: ${file}: unterminated """ for ${key}`);
        body += '\n' + lines[i]!.replace(/\r$/, '');
      }
      value = body.slice(0, body.indexOf('"""'));
    } else if (rest.startsWith('"')) {
      const end = closingQuote(rest);
      if (end < 0) throw new SvcError(ErrorCode.ConfigEnv, `failed to parse dotenv file: ${file}:${i + 1}: unterminated quote for ${key}`);
      value = JSON.parse(rest.slice(0, end + 1)) as string;
    } else if (rest.startsWith("'")) {
      const end = rest.indexOf("'", 1);
      if (end < 0) throw new SvcError(ErrorCode.ConfigEnv, `failed to parse dotenv file: ${file}:${i + 1}: unterminated quote for ${key}`);
      value = rest.slice(1, end);
    } else {
      const hash = rest.search(/[ \t]#|^#/);
      if (hash >= 0) rest = rest.slice(0, hash);
      value = rest.trim();
    }
    vars[key] = value;
  }
  return vars;
}

function closingQuote(s: string): number {
  for (let i = 1; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '"') return i;
  }
  return -1;
}

/** Reads each file (globs expanded) and sets its variables in process.env, in order. */
export async function applyEnvFiles(patterns: string[]): Promise<void> {
  if (patterns.length === 0) return;
  for (const file of await expandGlobs(patterns)) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new SvcError(ErrorCode.ConfigEnv, `failed to read dotenv file: ${file}: ${errorMessage(err)}`);
    }
    Object.assign(process.env, parseDotEnv(text, file));
  }
}
