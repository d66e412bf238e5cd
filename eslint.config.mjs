// Type-checked linting: the rules that catch real bugs in async Nest code.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { readdirSync } from 'node:fs';

/** The top-level folders of src/, read at lint time so that a new feature folder is covered at once. */
const SRC_FOLDERS = readdirSync(new URL('./src', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

const allFoldersBut = (...kept) => SRC_FOLDERS.filter((folder) => !kept.includes(folder));

/**
 * Import boundaries between the folders of src/: a folder -> the folders its files must not import.
 * A forbidden import is the edge that closes a folder cycle, so the lint refuses it when it is written
 * instead of the import graph showing the cycle later. `common` is the base every folder builds on: it
 * imports none of them, not even config (a setting a common helper needs is passed in by its caller).
 */
const FORBIDDEN_IMPORTS = {
  common: allFoldersBut('common'),
};

/** One config block per folder: relative imports (`../runs/...`) and baseUrl ones (`src/runs/...`). */
const boundaries = Object.entries(FORBIDDEN_IMPORTS).map(([folder, forbidden]) => ({
  files: [`src/${folder}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^(?:(?:\\.\\./)+|src/)(?:${forbidden.join('|')})(?:/|$)`,
            message: `src/${folder} must not import from ${forbidden.join(', ')} (eslint.config.mjs, FORBIDDEN_IMPORTS).`,
          },
        ],
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**', '.data/**'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      eqeqeq: ['error', 'always'],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  ...boundaries,
);
