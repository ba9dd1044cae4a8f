/**
 * Environment substitution on the raw config text, before parsing, as Benthos does it:
 * `${VAR}` is the variable (an error when unset), `${VAR:default}` falls back to the default,
 * `${{VAR}}` is the literal text `${VAR}`. `${! ... }` interpolations are left alone.
 */
export interface EnvProblem {
  /** 0-based offset into the text. */
  offset: number;
  message: string;
}

const ENV_RE = /\$\{\{([^{}]*)\}\}|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}/g;

export function substituteEnv(
  text: string,
  env: Record<string, string | undefined> = process.env,
): { text: string; problems: EnvProblem[] } {
  const problems: EnvProblem[] = [];
  const out = text.replace(ENV_RE, (match, escaped: string | undefined, name: string | undefined, def: string | undefined, offset: number) => {
    if (escaped !== undefined) return '${' + escaped + '}';
    const value = env[name!];
    if (value !== undefined && value !== '') return value;
    if (def !== undefined) return def;
    problems.push({
      offset,
      message: `environment variable ${name} is not set and ${match} has no default: set it, or write \${${name}:default}`,
    });
    return '';
  });
  return { text: out, problems };
}
