import tseslint from 'typescript-eslint';
import layers from './scripts/eslint-layers.mjs';

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
  // The house rules: src/main's layers, src/shared and src/renderer kept apart from it and from
  // Node, electron only in src/main/electron. The table is scripts/layers.mjs.
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    plugins: { kubecred: layers },
    rules: {
      'kubecred/layers': [
        'error',
        {
          // Each requires a native addon scripts/build-native.mjs builds, by a path found at run
          // time: a .node file outside src, so no layer can be reached that way.
          computedSpecifiersIn: {
            'src/main/platform/peerCredentials.ts': 'the peer-credentials addon (Linux, macOS)',
            'src/main/platform/pipeCaller.ts': 'the named-pipe client addon (Windows)',
          },
        },
      ],
    },
  },
);
