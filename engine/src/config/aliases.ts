import { type Alias, isAlias, isCollection, isPair, isScalar, type LineCounter, type Node } from 'yaml';
import type { ConfigIssue } from '../errors.js';

/**
 * Aliases may add at most this many nodes to a config, or as many as it has written out if that
 * is more: a real config that shares a few blocks stays far below, while an alias bomb (each level
 * aliasing the previous one nine times: 9^9 nodes from 10 lines) is refused before anything is
 * expanded. Go's yaml.v3, which Benthos uses, refuses "excessive aliasing" by a similar ratio.
 */
export const MAX_ALIAS_EXPANSION = 100_000;

/**
 * Resolves every alias of a document to the node of its anchor (the nearest `&name` before it,
 * as YAML says) and bounds how much the aliases expand to, in one pass that never expands
 * anything: the expanded size of an anchored node is computed once and reused.
 * Returns the alias → node table the Validator reads through; an alias that is refused (no
 * anchor, its own anchor, over the bound) is absent from it and has an issue here.
 */
export function resolveAliases(root: Node | null | undefined, file: string, lines: LineCounter, issues: ConfigIssue[]): Map<Alias, Node> {
  const targets = new Map<Alias, Node>();
  const anchors = new Map<string, Node>();
  const sizes = new Map<Node, number>();
  const open = new Set<Node>();
  const uses: { alias: Alias; total: number; size: number }[] = [];
  let expanded = 0;
  let written = 0;
  const at = (node: Node) => ({ file, ...lines.linePos(node.range?.[0] ?? 0) });

  const walk = (node: unknown): number => {
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      if (target === undefined) {
        issues.push({ ...at(node), message: `alias *${node.source} has no anchor &${node.source} before it: define the anchor first` });
      } else if (open.has(target)) {
        issues.push({ ...at(node), message: `alias *${node.source} is inside its own anchor &${node.source}: it would expand forever` });
      } else {
        const size = sizes.get(target) ?? 1;
        expanded += size;
        targets.set(node, target);
        uses.push({ alias: node, total: expanded, size });
        return size;
      }
      return 1;
    }
    if (!isScalar(node) && !isCollection(node)) return 0;
    written++;
    const anchor = node.anchor;
    if (anchor) {
      anchors.set(anchor, node);
      open.add(node);
    }
    let size = 1;
    if (isCollection(node)) {
      for (const item of node.items) {
        if (isPair(item)) size += walk(item.key) + walk(item.value);
        else size += walk(item);
      }
    }
    if (anchor) {
      open.delete(node);
      sizes.set(node, size);
    }
    return size;
  };
  walk(root);

  const limit = Math.max(MAX_ALIAS_EXPANSION, written);
  const first = uses.findIndex((u) => u.total > limit);
  if (first >= 0) {
    const u = uses[first]!;
    issues.push({
      ...at(u.alias),
      message:
        `alias *${u.alias.source} expands to ${u.size.toLocaleString('en')} nodes, and the aliases up to here to ${u.total.toLocaleString('en')}: ` +
        `more than the ${limit.toLocaleString('en')} a config may add through aliases (an alias bomb?); write the shared block out or alias less deeply`,
    });
    for (const later of uses.slice(first)) targets.delete(later.alias);
  }
  return targets;
}

/** `<<: *base` (or `<<: [*a, *b]`): a YAML merge key, written plain (a quoted "<<" is an ordinary key). */
export function isMergeKey(key: unknown): boolean {
  return isScalar(key) && key.value === '<<' && key.type === 'PLAIN';
}
