/**
 * A compiled jq query: parsed once, every function and variable it names checked against what is
 * defined (so an unsupported built-in is refused when the config is read, not per message), then
 * run per input with `$metadata` and `$ENV` bound.
 */
import { natives, PRELUDE, processEnv } from './builtins.js';
import { binop, bindVar, type Env, Interpreter } from './interpreter.js';
import { type FuncDef, type Node, type Pattern, parseJq } from './parser.js';
import { type JqObject, type Value } from './value.js';

const BASE: Env = { vars: null, funcs: null };

function buildInterpreter(): Interpreter {
  const prelude = new Map<string, { def: FuncDef; env: Env }>();
  const interp: Interpreter = new Interpreter(new Map(), prelude);
  const nats = natives(interp, binop);
  for (const [k, v] of nats) interp.natives.set(k, v);
  for (let n = parseJq(PRELUDE); n.t === 'def'; n = n.body) prelude.set(`${n.def.name}/${n.def.params.length}`, { def: n.def, env: BASE });
  return interp;
}

let shared: Interpreter | undefined;
const interpreter = () => (shared ??= buildInterpreter());

/** A query that names something undefined: gojq's compile error texts. */
function check(n: Node, funcs: Set<string>[], vars: Set<string>, known: (k: string) => boolean): void {
  const has = (k: string) => funcs.some((s) => s.has(k)) || known(k);
  const walk = (x: Node, fs: Set<string>[] = funcs, vs: Set<string> = vars) => check(x, fs, vs, known);
  const patternVars = (p: Pattern, vs: Set<string>): void => {
    if (p.t === 'var') vs.add(p.name);
    else if (p.t === 'array') p.items.forEach((i) => patternVars(i, vs));
    else
      for (const e of p.entries) {
        if (e.bind) vs.add(e.bind);
        if (e.pattern) patternVars(e.pattern, vs);
        walk(e.key, funcs, vs);
      }
  };
  switch (n.t) {
    case 'call':
      if (!has(`${n.name}/${n.args.length}`)) throw new Error(`function not defined: ${n.name}/${n.args.length}`);
      n.args.forEach((a) => walk(a));
      return;
    case 'var':
      if (!vars.has(n.name)) throw new Error(`variable not defined: $${n.name}`);
      return;
    case 'format':
      if (!known(`@${n.name}/0`)) throw new Error(`format not defined: @${n.name}`);
      return;
    case 'string':
      if (n.format !== undefined && !known(`@${n.format}/0`)) throw new Error(`format not defined: @${n.format}`);
      n.parts.forEach((p) => typeof p !== 'string' && walk(p));
      return;
    case 'break':
      if (!vars.has('*label*' + n.name)) throw new Error(`label not defined: $${n.name}`);
      return;
    case 'label':
      walk(n.body, funcs, new Set([...vars, '*label*' + n.name]));
      return;
    case 'as':
    case 'reduce':
    case 'foreach': {
      walk(n.source);
      const vs = new Set(vars);
      patternVars(n.pattern, vs);
      if (n.t === 'as') walk(n.body, funcs, vs);
      else {
        walk(n.init);
        walk(n.update, funcs, vs);
        if (n.t === 'foreach' && n.extract) walk(n.extract, funcs, vs);
      }
      return;
    }
    case 'def': {
      const self = new Set([`${n.def.name}/${n.def.params.length}`]);
      const params = new Set(n.def.params.map((p) => `${p.replace(/^\$/, '')}/0`));
      const vs = new Set([...vars, ...n.def.params.filter((p) => p.startsWith('$')).map((p) => p.slice(1))]);
      walk(n.def.body, [...funcs, self, params], vs);
      walk(n.body, [...funcs, self]);
      return;
    }
    default:
      for (const v of Object.values(n)) {
        if (v && typeof v === 'object' && 't' in v) walk(v as Node);
        if (!Array.isArray(v)) continue;
        for (const e of v as unknown[]) {
          if (e === null || typeof e !== 'object' || !('key' in e)) continue;
          walk((e as { key: Node }).key);
          walk((e as unknown as { value: Node }).value);
        }
      }
  }
}

export class JqProgram {
  private constructor(private readonly node: Node) {}

  /** Parses and checks a query; throws an Error saying what is wrong. */
  static compile(query: string): JqProgram {
    const node = parseJq(query);
    const interp = interpreter();
    check(node, [], new Set(['metadata', 'ENV']), (k) => interp.natives.has(k) || interp.prelude.has(k));
    return new JqProgram(node);
  }

  /** Every value the query emits for `input`. */
  run(input: Value, metadata: JqObject, env: JqObject = processEnv()): Value[] {
    const scope = bindVar(bindVar(BASE, 'ENV', env), 'metadata', metadata);
    return interpreter().all(this.node, input, scope);
  }
}
