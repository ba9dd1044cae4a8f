import { isMap, isScalar, isSeq, type Node, type Pair } from 'yaml';

/** A key written twice in one YAML mapping. */
export interface DuplicateKey {
  /** 0-based offset of the second (and later) occurrence. */
  offset: number;
  key: string;
}

/**
 * Finds keys written twice in a mapping, in one pass with a set per mapping. The yaml package's
 * own `uniqueKeys` check compares every key with every earlier key of its map (quadratic: a map
 * of 20 000 keys took 24 s to parse), so it is turned off and this one runs instead.
 */
export function duplicateKeys(root: Node | null | undefined): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  const walk = (node: unknown): void => {
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items as Pair[]) {
        const k = pair.key;
        // Only scalar keys compare by value (as the yaml package does); a collection key is unique by identity.
        const id = isScalar(k) ? k.value : k;
        if (seen.has(id)) found.push({ offset: (k as Node | null)?.range?.[0] ?? 0, key: String(id) });
        else seen.add(id);
        walk(k);
        walk(pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) walk(item);
    }
  };
  walk(root);
  return found;
}
