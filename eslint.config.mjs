// Type-checked linting: the rules that catch real bugs in async Nest code.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { readdirSync } from 'node:fs';

/** The top-level folders of src/, read at lint time so that a new feature folder is covered at once. */
const SRC_FOLDERS = readdirSync(new URL('./src', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/**
 * The layers of src/, top to bottom: a folder may import only folders of the layers below its own,
 * never one of its layer or above. So the folders can never import each other, directly or through
 * others (no folder cycle), and the lint refuses the import that would close one when it is written.
 * `common` is the base every folder builds on: it imports none of them, not even config (a setting a
 * common helper needs is passed in by its caller). A new folder must be placed here.
 */
const LAYERS = [
  ['sessions'],
  // schedules sits above runs: "trigger now" starts a run through RunsService and answers its RunDto.
  ['step-types', 'console', 'schedules'],
  // llm sits above approvals and budgets: an LLM step over its budget may pause on an approval request.
  ['llm'],
  ['approvals', 'budgets', 'runs', 'webhooks', 'rate-limit', 'executor'],
  ['costs', 'definitions', 'api-keys', 'health', 'workspaces', 'handlers'],
  ['expressions'],
  ['steps'],
  ['queue', 'database'],
  // idempotency: the Idempotency-Key interceptor (registered by app.module) and @SecretInAnswer, which
  // the controllers of every feature above may use.
  ['metrics', 'tracing', 'idempotency'],
  ['config'],
  ['common'],
];

const unplaced = SRC_FOLDERS.filter((folder) => !LAYERS.flat().includes(folder));
if (unplaced.length > 0) {
  throw new Error(`eslint.config.mjs: place src/${unplaced.join(', src/')} in LAYERS`);
}

/** A folder -> the folders its files must not import: its own layer's and every layer above. */
const FORBIDDEN_IMPORTS = Object.fromEntries(
  LAYERS.flatMap((layer, i) =>
    layer.map((folder) => [
      folder,
      [...LAYERS.slice(0, i).flat(), ...layer.filter((other) => other !== folder)],
    ]),
  ),
);

/** One config block per folder (its code, not its unit tests): relative imports (`../runs/...`) and baseUrl ones (`src/runs/...`). */
const boundaries = Object.entries(FORBIDDEN_IMPORTS).map(([folder, forbidden]) => ({
  files: [`src/${folder}/**/*.ts`],
  // Unit tests may take what they test together with the pieces that use it (the built-in types).
  ignores: ['**/*.spec.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^(?:(?:\\.\\./)+|src/)(?:${forbidden.join('|')})(?:/|$)`,
            message: `src/${folder} must not import from ${forbidden.join(', ')} (eslint.config.mjs, LAYERS).`,
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
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
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
