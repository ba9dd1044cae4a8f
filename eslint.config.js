// ESLint for the workspace: typescript-eslint's recommended rules on the TypeScript sources,
// and Node's globals for the scripts and benchmarks (.mjs). Formatting is Prettier's job.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

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
  // The hub's web page runs in the browser.
  { files: ['governance-plugin/web/**/*.js'], languageOptions: { globals: { ...globals.browser } } },
);
