/**
 * The syntax tree the parser produces and the compiler turns into closures. Every node keeps
 * its source position so that compile errors (unknown method, bad arguments) point at it.
 */

export interface Pos {
  line: number;
  col: number;
}

export type BinaryOp = '+' | '-' | '*' | '/' | '%' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '&&' | '||' | '|';

export interface Arg {
  /** Set for a named argument (`name: value`). */
  name?: string;
  value: Expr;
  pos: Pos;
}

export type Expr =
  | { kind: 'lit'; value: unknown; pos: Pos }
  | { kind: 'array'; items: Expr[]; pos: Pos }
  | { kind: 'object'; entries: { key: Expr; value: Expr }[]; pos: Pos }
  /** `this` (the context), optionally followed by a path. */
  | { kind: 'this'; path: string[]; pos: Pos }
  /** `root` (the document being built), optionally followed by a path. */
  | { kind: 'root'; path: string[]; pos: Pos }
  /** A lambda's named context (`x` in `x -> x.a`). */
  | { kind: 'named'; name: string; path: string[]; pos: Pos }
  | { kind: 'var'; name: string; path: string[]; pos: Pos }
  /** `@` (whole metadata, name '') or `@key`. */
  | { kind: 'meta'; name: string; pos: Pos }
  /** A path below an arbitrary expression (`foo().a.b`, `$x.a`). */
  | { kind: 'get'; target: Expr; path: string[]; pos: Pos }
  | { kind: 'call'; name: string; args: Arg[]; pos: Pos }
  | { kind: 'method'; target: Expr; name: string; args: Arg[]; pos: Pos }
  /** `target.(expr)`: expr with `this` bound to target. */
  | { kind: 'mapctx'; target: Expr; body: Expr; pos: Pos }
  | { kind: 'not'; expr: Expr; pos: Pos }
  | { kind: 'binary'; op: BinaryOp; left: Expr; right: Expr; pos: Pos }
  | { kind: 'if'; branches: { cond: Expr; then: Expr }[]; otherwise?: Expr; pos: Pos }
  /** `match subject { pattern => body }`; a null pattern is `_`. */
  | { kind: 'match'; subject?: Expr; cases: { pattern: Expr | null; body: Expr }[]; pos: Pos }
  | { kind: 'lambda'; name: string; body: Expr; pos: Pos };

export type AssignTarget =
  | { kind: 'root'; path: string[] }
  /** `meta key = ...`; a null key is `meta = ...` (the whole metadata). */
  | { kind: 'meta'; key: string | null }
  | { kind: 'var'; name: string };

export type Stmt =
  { kind: 'assign'; target: AssignTarget; value: Expr; pos: Pos } | { kind: 'if'; branches: { cond: Expr; body: Stmt[] }[]; otherwise?: Stmt[]; pos: Pos };

export interface Program {
  stmts: Stmt[];
  /** Named mappings declared with `map name { ... }`, applied with `.apply("name")`. */
  maps: Map<string, Stmt[]>;
}
