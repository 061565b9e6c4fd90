import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.venv/**', '.venv-vllm/**', 'trainer/**', 'test-results/**', '.vscode-test/**'] },
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
  {
    // Imports run one way: webview/ imports what src/ owns (protocols, chart specs, colour scales), never the reverse.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '(^|/)webview(/|$)', message: 'src/ must not import webview/: put shared code in src/ (e.g. src/protocol/) and import it from webview/.' }] },
      ],
    },
  },
  {
    // The vscode-free cores: unit-tested in plain Node, and bundled into webviews.
    files: [
      'src/runs/{core,shared}/**/*.ts',
      'src/protocol/**/*.ts',
      'src/dashboard/{axis,charts,csv,dashboardRuns,evaluation,runComparison,runDescription,series}.ts',
      'src/trajectory/{align,batchTable,colorScale,disagreement,format,inertText,sparkline,textRender,trajectoryTable,turnStats,virtualLayout}.ts',
      'src/runsTree/core/groupCompare.ts',
      'src/webviewHost/core/pageHtml.ts',
      'src/experiments/core/modelPath.ts',
      'src/trainer/{gpuChoice,gpuQuery,memoryEstimate,runEndMessage,sessionMachine}.ts',
      'src/whatIf/{errors,exportChoice,gate,onnxExport,onnxScorer,promptTokens,rescore,skillInsertion,whatIfFile,whatIfRecord}.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'a vscode-free module: take what you need from vscode as a parameter in its adapter.' }],
          patterns: [{ regex: '(^|/)webview(/|$)', message: 'src/ must not import webview/.' }],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: {
      globals: globals.node,
    },
  },
);
