import { type Alias, Document, isAlias, isMap, isScalar, isSeq, type LineCounter, type Node, type Pair, type YAMLMap } from 'yaml';
import type { ConfigIssue } from '../errors.js';
import { InterpError, compileInterpolation, compileMapping, compileQuery, hasInterpolation } from '../interp/index.js';
import { packageToInstall } from '../plugin/component-packages.js';
import type { Registry } from '../plugin/registry.js';
import type { ComponentConfig, ComponentKind } from './component-config.js';
import { f, type Field } from './spec.js';
import { isMergeKey } from './aliases.js';

/** The metrics section's `mapping`, beside its type (see observability/metric-mapping.ts). */
const METRICS_MAPPING_FIELD = f.mapping().default('') as Field<unknown>;

const LABEL_RE = /^[a-z0-9_]+$/;

/** How a document's values are read beyond the specs (see config-document.ts). */
export interface ValidatorOptions {
  /** JSON's types: a string field takes only a string, a number field only a number (never `"8080"`). */
  strict?: boolean;
  /** Never quote a string value in an issue (a document of tokens and passwords): `got a string`. */
  hideStrings?: boolean;
  /** Called for a field an object's spec does not name, instead of an issue (a document that tolerates them). */
  unknownField?: (path: string, key: Node) => void;
}

/**
 * Validates YAML nodes against field specs: collects every issue with its position, and
 * returns the normalised value (defaults applied, components resolved).
 */
export class Validator {
  readonly issues: ConfigIssue[] = [];
  private readonly labels = new Map<string, string>();

  constructor(
    private readonly registry: Registry,
    private readonly file: string,
    private readonly lines: LineCounter,
    /** Every alias's anchored node, from resolveAliases; an alias missing here was refused there. */
    private readonly aliases: ReadonlyMap<Alias, Node> = new Map(),
    private readonly options: ValidatorOptions = {},
  ) {}

  private describe(node: Node): string {
    return this.options.hideStrings === true && isScalar(node) && typeof node.value === 'string' ? 'a string' : describe(node);
  }

  issue(node: Node | null | undefined, message: string): void {
    const offset = node?.range?.[0] ?? 0;
    const pos = this.lines.linePos(offset);
    this.issues.push({ file: this.file, line: pos.line, col: pos.col, message });
  }

  /** Validates `node` (undefined when absent) against `field`; `path` is the config path. */
  value(node: Node | null | undefined, field: Field<unknown>, path: string, parent?: Node | null): unknown {
    if (isAlias(node)) {
      const target = this.aliases.get(node);
      if (target === undefined) return undefined; // refused by resolveAliases, which said why
      node = target;
    }
    const absent = node === undefined || node === null || (isScalar(node) && node.value === null);
    if (absent && field.kind !== 'object' && field.kind !== 'component') {
      if (field.hasDefault) return structuredClone(field.defaultValue);
      if (field.isOptional) return undefined;
      if (node === undefined || node === null) this.issue(parent, `field ${lastSegment(path)} is required (${path})`);
      else this.issue(node, `field ${lastSegment(path)} is required and cannot be null (${path})`);
      return undefined;
    }
    if (absent && field.kind === 'object') {
      if (field.hasDefault) return structuredClone(field.defaultValue);
      if (field.isOptional) return undefined;
    }
    switch (field.kind) {
      case 'string':
        return this.checked(node!, field, path, this.string(node!, field, path));
      case 'int':
      case 'float':
        return this.checked(node!, field, path, this.number(node!, field, path));
      case 'bool': {
        if (isScalar(node) && typeof node.value === 'boolean') return node.value;
        this.issue(node, `expected a boolean (true or false) at ${path}, got ${this.describe(node!)}`);
        return field.defaultValue;
      }
      case 'any':
        return this.checked(node!, field, path, this.plain(node!));
      case 'array':
        return this.checked(node!, field, path, this.array(node!, field, path));
      case 'map':
        return this.checked(node!, field, path, this.map(node!, field, path));
      case 'object':
        return this.checked(node ?? undefined, field, path, this.object(absent ? undefined : node!, field, path, parent));
      case 'component':
        if (absent) {
          if (field.hasDefault && field.defaultValue !== undefined) {
            return this.component(new Document(field.defaultValue).contents as Node, field.componentKind!, path);
          }
          if (field.isOptional) return undefined;
          this.issue(node ?? parent, `a ${field.componentKind} is required at ${path}`);
          return undefined;
        }
        return this.component(node!, field.componentKind!, path);
    }
  }

  private checked(node: Node | undefined, field: Field<unknown>, path: string, value: unknown): unknown {
    if (value !== undefined && field.check) {
      const problem = field.check(value);
      if (problem) this.issue(node, `${problem} (${path})`);
    }
    return value;
  }

  private string(node: Node, field: Field<unknown>, path: string): string | undefined {
    if (!isScalar(node) || typeof node.value === 'object' || (this.options.strict === true && typeof node.value !== 'string')) {
      this.issue(node, `expected a string at ${path}, got ${this.describe(node)}`);
      return undefined;
    }
    const s = String(node.value);
    if (field.lang || field.isInterpolated) this.language(node, field, path, s);
    if (field.options && !field.options.includes(s)) {
      const ci = field.options.find((o) => o.toLowerCase() === s.toLowerCase());
      if (ci !== undefined) return ci;
      this.issue(node, `invalid value "${s}" at ${path}: expected one of ${field.options.join(', ')}`);
    }
    return s;
  }

  private number(node: Node, field: Field<unknown>, path: string): number | undefined {
    let v: unknown = isScalar(node) ? node.value : undefined;
    if (typeof v === 'string' && this.options.strict !== true && v.trim() !== '' && !Number.isNaN(Number(v))) v = Number(v);
    if (typeof v !== 'number' || Number.isNaN(v)) {
      this.issue(node, `expected ${field.kind === 'int' ? 'an integer' : 'a number'} at ${path}, got ${this.describe(node)}`);
      return undefined;
    }
    if (field.kind === 'int' && !Number.isInteger(v)) {
      this.issue(node, `expected an integer at ${path}, got ${v}`);
      return undefined;
    }
    return v;
  }

  private array(node: Node, field: Field<unknown>, path: string): unknown[] | undefined {
    if (!isSeq(node)) {
      this.issue(node, `expected an array at ${path}, got ${this.describe(node)}`);
      return undefined;
    }
    return node.items.map((item, i) => this.value(item as Node, field.item!, `${path}.${i}`, node));
  }

  private map(node: Node, field: Field<unknown>, path: string): Record<string, unknown> | undefined {
    if (!isMap(node)) {
      this.issue(node, `expected an object at ${path}, got ${this.describe(node)}`);
      return undefined;
    }
    const out: Record<string, unknown> = {};
    for (const pair of this.pairs(node)) {
      const key = keyOf(pair);
      out[key] = this.value(pair.value as Node, field.item!, `${path}.${key}`, pair.key as Node);
    }
    return out;
  }

  private object(node: Node | undefined, field: Field<unknown>, path: string, parent?: Node | null): Record<string, unknown> | undefined {
    if (node !== undefined && !isMap(node)) {
      this.issue(node, `expected an object at ${path}, got ${this.describe(node)}`);
      return undefined;
    }
    const fields = field.fields!;
    const seen = new Map<string, Pair>();
    if (node) {
      for (const pair of this.pairs(node as YAMLMap)) {
        const key = keyOf(pair);
        if (!Object.hasOwn(fields, key)) {
          if (this.options.unknownField !== undefined) {
            this.options.unknownField(path === '' ? key : `${path}.${key}`, pair.key as Node);
            continue;
          }
          this.issue(pair.key as Node, `field ${key} not expected at ${path || 'the top level'}${suggest(key, Object.keys(fields))}`);
          continue;
        }
        seen.set(key, pair);
      }
    }
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(fields)) {
      const pair = seen.get(key);
      out[key] = this.value(pair?.value as Node | undefined, child, path === '' ? key : `${path}.${key}`, (pair?.key as Node) ?? node ?? parent);
    }
    return out;
  }

  /**
   * A map's pairs with merge keys applied: `<<: *base` (or a list of them, earlier ones first)
   * adds the pairs of the merged maps whose keys the map does not write itself.
   */
  private pairs(map: YAMLMap): Pair[] {
    const items = map.items as Pair[];
    if (!items.some((p) => isMergeKey(p.key))) return items;
    const out = items.filter((p) => !isMergeKey(p.key));
    const keys = new Set(out.map(keyOf));
    for (const merge of items.filter((p) => isMergeKey(p.key))) {
      const value = this.deref(merge.value);
      const sources = isSeq(value) ? value.items.map((i) => this.deref(i)) : [value];
      for (const src of sources) {
        if (src === undefined) continue;
        if (!isMap(src)) {
          this.issue((merge.value as Node) ?? (merge.key as Node), `<< merges a map (<<: *anchor) or a list of maps (<<: [*a, *b]), got ${this.describe(src)}`);
          continue;
        }
        for (const p of this.pairs(src)) {
          const key = keyOf(p);
          if (keys.has(key)) continue;
          keys.add(key);
          out.push(p);
        }
      }
    }
    return out;
  }

  /** The node an alias stands for (undefined when it was refused); any other node itself. */
  private deref(node: unknown): Node | undefined {
    if (isAlias(node)) return this.aliases.get(node);
    return (node ?? undefined) as Node | undefined;
  }

  /** The plain JS value of a node (for `any` fields), with aliases and merge keys resolved. */
  private plain(node: unknown): unknown {
    const n = this.deref(node);
    if (isScalar(n)) return n.value;
    if (isSeq(n)) return n.items.map((i) => this.plain(i));
    if (isMap(n)) {
      const out: Record<string, unknown> = {};
      // defineProperty, not `out[key] =`: a key named __proto__ is data, not the object's prototype.
      for (const p of this.pairs(n)) Object.defineProperty(out, keyOf(p), { value: this.plain(p.value), enumerable: true, writable: true, configurable: true });
      return out;
    }
    return null;
  }

  /** Compiles expression-language text so that its errors are lint errors at their position. */
  private language(node: Node, field: Field<unknown>, path: string, text: string): void {
    if (text === '') return;
    try {
      if (field.lang === 'mapping') compileMapping(text);
      else if (field.lang === 'query') compileQuery(text);
      else if (hasInterpolation(text)) compileInterpolation(text);
    } catch (err) {
      if (!(err instanceof InterpError)) throw err;
      const start = this.lines.linePos(node.range?.[0] ?? 0);
      const block = isScalar(node) && (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED');
      const quoted = isScalar(node) && (node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE');
      const line = start.line + err.line - (block ? 0 : 1);
      const col = err.line === 1 && !block ? start.col + err.col - 1 + (quoted ? 1 : 0) : err.col;
      this.issues.push({ file: this.file, line, col, message: `${err.reason} (${path})` });
    }
  }

  /** A component: `{label?, processors?, <type>: <config>}`. */
  component(node: Node, kind: ComponentKind, path: string): ComponentConfig | undefined {
    if (isAlias(node)) {
      const target = this.aliases.get(node);
      if (target === undefined) return undefined; // refused by resolveAliases, which said why
      node = target;
    }
    if (!isMap(node)) {
      this.issue(node, `expected a ${kind} at ${path} (an object naming one ${kind} type), got ${this.describe(node)}`);
      return undefined;
    }
    const acceptsProcessors = kind === 'input' || kind === 'output';
    let typeName: string | undefined;
    let typePair: Pair | undefined;
    let label = '';
    let processorsNode: Node | undefined;
    let mapping: string | undefined;
    for (const pair of this.pairs(node)) {
      const key = keyOf(pair);
      if (key === 'label') {
        const l = this.string(pair.value as Node, { kind: 'string' } as Field<unknown>, `${path}.label`) ?? '';
        if (l !== '' && !LABEL_RE.test(l)) {
          this.issue(pair.value as Node, `label "${l}" at ${path} must contain only lowercase letters, digits and underscores`);
        }
        if (l !== '') {
          const first = this.labels.get(l);
          if (first !== undefined) this.issue(pair.value as Node, `duplicate label "${l}": already used at ${first}`);
          else this.labels.set(l, path);
        }
        label = l;
      } else if (key === 'processors' && acceptsProcessors) {
        processorsNode = this.deref(pair.value);
      } else if (key === 'mapping' && kind === 'metrics') {
        mapping = this.value(pair.value as Node, METRICS_MAPPING_FIELD, `${path}.mapping`) as string | undefined;
      } else if (typeName === undefined) {
        typeName = key;
        typePair = pair;
      } else {
        this.issue(pair.key as Node, `${path} names two ${kind} types (${typeName} and ${key}): a component has exactly one type`);
      }
    }
    if (typeName === undefined || typePair === undefined) {
      this.issue(node, `${path} names no ${kind} type: add one of ${this.registry.names(kind).join(', ')}`);
      return undefined;
    }
    const reg = this.registry.get(kind, typeName);
    if (!reg) {
      const pkg = packageToInstall(kind, typeName);
      this.issue(
        typePair.key as Node,
        pkg !== undefined
          ? `the ${kind} "${typeName}" at ${path} comes with ${pkg}, which is not installed: install ${pkg} (npm install ${pkg}) or svc (every package)`
          : `unknown ${kind} type "${typeName}" at ${path}${suggest(typeName, this.registry.names(kind))}; if it comes from a plugin, list the module under plugins: or pass --plugin`,
      );
      return undefined;
    }
    const config = this.value(typePair.value as Node | undefined, reg.spec.config, `${path}.${typeName}`, typePair.key as Node);
    const processors: ComponentConfig[] = [];
    if (processorsNode !== undefined && !(isScalar(processorsNode) && processorsNode.value === null)) {
      if (!isSeq(processorsNode)) {
        this.issue(processorsNode, `expected an array of processors at ${path}.processors`);
      } else {
        processorsNode.items.forEach((item, i) => {
          const p = this.component(item as Node, 'processor', `${path}.processors.${i}`);
          if (p) processors.push(p);
        });
      }
    }
    return mapping ? { type: typeName, label, path, config, processors, mapping } : { type: typeName, label, path, config, processors };
  }
}

export function keyOf(pair: Pair): string {
  const k = pair.key;
  return isScalar(k) ? String(k.value) : String(k);
}

function lastSegment(path: string): string {
  const i = path.lastIndexOf('.');
  return i < 0 ? path : path.slice(i + 1);
}

function describe(node: Node): string {
  if (isMap(node)) return 'an object';
  if (isSeq(node)) return 'an array';
  if (isScalar(node)) {
    const v = node.value;
    if (v === null) return 'null';
    if (typeof v === 'string') return `the string "${v.length > 40 ? v.slice(0, 40) + '…' : v}"`;
    return `${typeof v} ${String(v)}`;
  }
  return 'something else';
}

/** ", did you mean X?" for the closest candidate within a small edit distance. */
function suggest(word: string, candidates: string[]): string {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(word.length / 3)) ? `; did you mean ${best}?` : '';
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}
