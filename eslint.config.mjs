import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const noWebview = { regex: '(^|/)webview(/|$)', message: 'src/ must not import webview/: put what both sides need in src/<feature>/shared/.' };

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.venv/**', '.venv-vllm/**', '.venv-verl/**', 'trainer/**', 'test-results/**', '.vscode-test/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
    },
  },
  // Layers by path (docs/extension.md, "Where the code is"). A feature is src/<feature>/ and webview/<feature>/:
  //   src/<feature>/shared/  what the view imports too: no vscode, no Node, no packages, only other shared/ folders
  //                          (no DOM either: tsconfig.json, which type-checks src/, has no DOM library);
  //   src/<feature>/core/    vscode-free host code, unit-tested in plain Node: no vscode value, no host code;
  //   src/<feature>/         host code (vscode);
  //   webview/<feature>/     the view: imports src/ only from shared/ folders.
  // Imports run one way: nothing in src/ imports webview/. Later blocks replace the rule for the files they match,
  // so each repeats the webview/ ban.
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [noWebview] }],
    },
  },
  {
    files: ['src/*/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          // Types only: they leave nothing in the compiled module, which still runs in plain Node.
          paths: [{ name: 'vscode', allowTypeImports: true, message: 'core/ is vscode-free: take what you need from vscode as a parameter in the host code.' }],
          patterns: [noWebview, { regex: '^\\.\\./(?!shared/|\\.\\./[^/]+/(core|shared)/)', message: 'core/ imports core/ and shared/ folders only, never host code.' }],
        },
      ],
    },
  },
  {
    files: ['src/*/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            noWebview,
            { regex: '^[^.]', message: 'shared/ is bundled into the webviews: no vscode, no Node, no packages.' },
            { regex: '^\\.\\./(?!\\.\\./[^/]+/shared/)', message: 'shared/ imports other shared/ folders only.' },
          ],
        },
      ],
    },
  },
  {
    files: ['webview/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(vscode|node:.*)$', message: 'a view runs in the browser: no vscode, no Node.' },
            { regex: '(^|/)src/(?![^/]+/shared/)', message: 'a view imports src/ only from shared/ folders (src/<feature>/shared/).' },
          ],
        },
      ],
    },
  },
  // Size guards on product code (the trainer's are in trainer/tests/test_architecture.py): a file past 400 lines or a
  // function past 120 holds more than one thing a reader can keep in view; split it by what its parts do.
  {
    files: ['src/**/*.ts', 'webview/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 120 }],
    },
  },
  // A generated module holds one schema's types (scripts/schemaTypes.mjs): its length is its schema's, nothing to split.
  {
    files: ['src/runs/shared/generated/*.ts'],
    rules: { 'max-lines': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: {
      globals: globals.node,
    },
  },
);
