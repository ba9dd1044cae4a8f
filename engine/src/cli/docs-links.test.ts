/**
 * The README and docs/ link to each other by relative path and heading anchor: every such link
 * must land on a file of the checkout and, with `#anchor`, on a heading of that file (anchors as
 * GitHub makes them), so that moving a section never leaves a reader at a dead end.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The anchors GitHub gives a markdown file's headings (a repeated one gets -1, -2, ...). */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of text.replace(/```[\s\S]*?```/g, '').split('\n')) {
    const m = /^#{1,6} (.+)$/.exec(line);
    if (!m) continue;
    const slug = m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f));
  return ['README.md', ...docs];
}

describe('links between the README and docs/', () => {
  it('every relative link lands on a file and, with an anchor, on one of its headings', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue; // http:, https:, mailto:
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const to = path === '' ? file : normalize(join(dirname(file), path));
        if (!existsSync(join(ROOT, to))) {
          broken.push(`${file}: ${target} (no file ${to})`);
          continue;
        }
        if (anchor && to.endsWith('.md') && !anchorsOf(readFileSync(join(ROOT, to), 'utf8')).has(anchor)) {
          broken.push(`${file}: ${target} (no heading #${anchor} in ${to})`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });
});
