// ESLint for the workspace: typescript-eslint's recommended rules on the TypeScript sources,
// and Node's globals for the scripts and benchmarks (.mjs). Formatting is Prettier's job.
import js from '@eslint/js';
import globals from 'globals';
import ts from 'typescript';
import tseslint from 'typescript-eslint';

/**
 * `svc/own-keys`: a read `obj[name]` of an object typed with a string index (`Record<string, V>`,
 * Node's headers) by a name that is any string. When the name comes from a request, `__proto__`,
 * `constructor` or `toString` reads Object.prototype's member instead of data (issue 36: a
 * version named `__proto__` killed a gateway process). Write `map.get(name)` on a Map,
 * `ownValue(obj, name)` (gateway/own-value.ts), or `Object.hasOwn(obj, name) ? obj[name] : …`.
 * Writes are not flagged: they are how such objects are built. Needs type information.
 */
const ownKeys = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { read: 'read with a Map, ownValue(obj, key) or Object.hasOwn: a request may name `__proto__` or `constructor`' },
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    const checker = services.program.getTypeChecker();
    const text = (n) => context.sourceCode.getText(n);
    const anyString = (t) =>
      t.isUnion() ? t.types.some(anyString) : (t.flags & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral | ts.TypeFlags.Any | ts.TypeFlags.Unknown)) !== 0;
    const stringIndexed = (t) =>
      t.isUnion()
        ? t.types.some(stringIndexed)
        : !checker.isArrayType(t) && !checker.isTupleType(t) && checker.getIndexInfoOfType(t, ts.IndexKind.String) !== undefined;
    const hasOwn = (test, node) =>
      test?.type === 'LogicalExpression' && test.operator === '&&'
        ? hasOwn(test.left, node) || hasOwn(test.right, node)
        : test?.type === 'CallExpression' &&
          text(test.callee) === 'Object.hasOwn' &&
          test.arguments.length === 2 &&
          text(test.arguments[0]) === text(node.object) &&
          text(test.arguments[1]) === text(node.property);
    // `Object.hasOwn(obj, key) ? …obj[key]… : …` (the test may be a chain of `&&`)
    const guarded = (node) => {
      for (let child = node, p = node.parent; p !== undefined && !p.type.includes('Function'); child = p, p = p.parent)
        if (p.type === 'ConditionalExpression' && p.consequent === child && hasOwn(p.test, node)) return true;
      return false;
    };
    return {
      MemberExpression(node) {
        if (!node.computed || node.property.type === 'Literal') return;
        const p = node.parent;
        if ((p.type === 'AssignmentExpression' && p.left === node) || (p.type === 'UnaryExpression' && p.operator === 'delete')) return;
        if (!anyString(services.getTypeAtLocation(node.property)) || guarded(node)) return;
        if (stringIndexed(checker.getNonNullableType(services.getTypeAtLocation(node.object)))) context.report({ node, messageId: 'read' });
      },
    };
  },
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'bench/.data/**', '.services/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `_name` marks a parameter or binding kept for its position or type.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  // `key in obj` is true for `constructor` and `toString` on any plain object: Object.hasOwn or a Map.
  {
    files: ['gateway-plugin/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "BinaryExpression[operator='in'][left.type!='Literal']",
          message: "`in` also finds Object.prototype's members (`constructor`, `toString`): use Object.hasOwn(obj, key) or a Map",
        },
      ],
    },
  },
  // Where the gateway reads a request's names (typed: the rule reads types). endpoint-lists.ts
  // reads `methodActions[method]`, and Node's parser only accepts the methods it knows.
  {
    files: [
      'gateway-plugin/src/{gateway,rewrite,refs}/**/*.ts',
      'gateway-plugin/src/transform/{variables,body-transform}.ts',
      'gateway-plugin/src/auth/hmac-auth.ts',
    ],
    ignores: ['**/*.test.ts', 'gateway-plugin/src/gateway/endpoint-lists.ts'],
    languageOptions: { parserOptions: { projectService: true } },
    plugins: { svc: { rules: { 'own-keys': ownKeys } } },
    rules: { 'svc/own-keys': 'error' },
  },
  // The hub's web page runs in the browser.
  { files: ['governance-plugin/web/**/*.js'], languageOptions: { globals: { ...globals.browser } } },
);
