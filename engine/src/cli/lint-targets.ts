/**
 * What `engine lint` is given, as Benthos' lint reads it: a file; a glob (`configs/*.yaml`,
 * expanded here, so a quoted pattern works too); or `DIR/...` (`./...`), every `.yaml` and `.yml`
 * file under DIR, sorted. A folder named alone is a problem of its own, not a read error.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { expandGlobs, isGlob } from '../components/io/glob.js';

export type LintTarget = { file: string } | { problem: string; path: string };

async function configsUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await configsUnder(p)));
    else if (/\.ya?ml$/.test(e.name)) out.push(p);
  }
  return out;
}

export async function lintTargets(args: readonly string[]): Promise<LintTarget[]> {
  const out: LintTarget[] = [];
  for (const a of args) {
    if (a === '...' || a.endsWith('/...')) {
      const dir = a === '...' ? '.' : a.slice(0, -4) || '/';
      const files = await configsUnder(dir);
      if (files.length === 0) out.push({ path: a, problem: `no .yaml or .yml file under ${dir}` });
      for (const file of files) out.push({ file });
      continue;
    }
    if (isGlob(a)) {
      const files = await expandGlobs([a]);
      if (files.length === 0) out.push({ path: a, problem: 'no file matches this pattern' });
      for (const file of files) out.push({ file });
      continue;
    }
    const st = await stat(a).catch(() => undefined);
    if (st?.isDirectory()) {
      const dir = a.endsWith('/') ? a.slice(0, -1) : a;
      out.push({ path: a, problem: `is a directory: name its files, or ${dir}/... to lint every .yaml and .yml file under it` });
    } else out.push({ file: a });
  }
  return out;
}
