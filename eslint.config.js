import tseslint from 'typescript-eslint';

// The house rules of DESIGN.md, enforced: electron only in src/main/electron; node:
// built-ins never in src/shared or src/renderer.
const NODE_BUILTINS = ['node:*', 'fs', 'fs/*', 'path', 'os', 'child_process', 'crypto', 'net', 'http', 'https', 'url', 'util', 'stream', 'events'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', 'test-results/**', 'src/shim/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/main/electron/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'electron is imported only in src/main/electron' }] }],
    },
  },
  {
    files: ['src/shared/**/*.ts', 'src/renderer/**/*.ts', 'src/renderer/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'electron is imported only in src/main/electron' }],
          patterns: [{ group: NODE_BUILTINS, message: 'src/shared and src/renderer run outside Node: no node: built-ins' }],
        },
      ],
    },
  },
);
