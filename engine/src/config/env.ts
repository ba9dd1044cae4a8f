/**
 * Environment substitution on the raw config text, before parsing, as Benthos does it:
 * `${VAR}` is the variable (an error when unset), `${VAR:default}` falls back to the default,
 * `${{VAR}}` is the literal text `${VAR}`. `${! ... }` interpolations are left alone.
 *
 * A substituted value stays on the line it replaces: its line breaks are written as the
 * escapes `\n` and `\r` (Benthos escapes `\n` the same way), so a value can change the scalar
 * it sits in but never start a new line, and so never add a key, a list item or a component
 * to a block mapping or sequence. Inside a double-quoted scalar (`"${VAR}"`) YAML reads the
 * escapes back as line breaks; elsewhere they stay as the two characters. What a value still
 * can do is what any text on that line can: inside a flow collection (`[${A}]`, `{k: ${A}}`)
 * a comma or bracket in it is YAML syntax, a quote ends the quoted scalar it sits in, and
 * ` #` starts a comment. Substitution is one pass: a `${...}` inside a value is not expanded.
 */
export interface EnvProblem {
  /** 0-based offset into the text. */
  offset: number;
  /** Where that is in the text as written, 1-based (substitution never moves a line). */
  line: number;
  col: number;
  message: string;
}

const ENV_RE = /\$\{\{([^{}]*)\}\}|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}/g;

/** YAML 1.2's line breaks, written as the escapes a double-quoted scalar reads back. */
const LINE_BREAK_RE = /[\n\r]/g;
const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r' };

/** The value as it is written into the config text: on one line. */
export function escapeEnvValue(value: string): string {
  return value.replace(LINE_BREAK_RE, (c) => ESCAPES[c]!);
}

/** The 1-based line that starts at `lineStart`. */
function countLines(text: string, lineStart: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < lineStart; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

export function substituteEnv(text: string, env: Record<string, string | undefined> = process.env): { text: string; problems: EnvProblem[] } {
  const problems: EnvProblem[] = [];
  const out = text.replace(ENV_RE, (match, escaped: string | undefined, name: string | undefined, def: string | undefined, offset: number) => {
    if (escaped !== undefined) return '${' + escaped + '}';
    const value = env[name!];
    if (value !== undefined && value !== '') return escapeEnvValue(value);
    if (def !== undefined) return escapeEnvValue(def);
    const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
    problems.push({
      offset,
      line: countLines(text, lineStart),
      col: offset - lineStart + 1,
      message: `environment variable ${name} is not set and ${match} has no default: set it, or write \${${name}:default}`,
    });
    return '';
  });
  return { text: out, problems };
}
