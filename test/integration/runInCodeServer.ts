// Runs the integration suite (test/integration/suite) inside a real VS Code extension host: code-server 4.100.3
// (VS Code 1.100.3) with the repository as the extension under development, opened by headless Chromium.
//
//   npm run build && node out/test/integration/runInCodeServer.js      (npm run test:vscode)
//
// Environment: SEED_PYTHON (trainer interpreter; default: the repository's .venv), CHROMIUM_PATH (default
// /usr/bin/chromium), SEED_CODE_SERVER_DIR (where code-server is installed), SEED_TEST_TIMEOUT_S (the longest the
// suite may go without a test finishing, default 360),
// SEED_TEST_GREP (run only matching tests), SEED_KEEP_TEMP (keep the temporary folders).
//
// code-server takes no --extensionTestsPath flag; the web workbench reads the same settings from its `payload` query
// parameter, and when the suite ends it calls window.codeAutomationExit(code, logs). That code is the result; the
// counts come from the JSON summary the suite writes to SEED_TEST_RESULT_FILE.
import path from 'node:path';
import { readSummary, reportSummary } from './testSummary';
import { repoRoot, runCodeServerTest, runnerPrerequisites } from './codeServerSession';

const LABEL = 'integration (code-server)';

interface AutomationExit {
  code: number;
  logs: Array<{ relativePath: string; contents: string }>;
}

function main(): void {
  const python = runnerPrerequisites(LABEL, 'out/test/integration/suite/index.js');
  console.log(`${LABEL}: trainer interpreter ${python}`);
  runCodeServerTest(
    { label: LABEL, artifactName: 'integration-code-server', timeoutSeconds: 360, session: { label: 'integration', env: { SEED_PYTHON: python } } },
    async (session) => {
      const page = await session.openBrowser();
      let onExit: (exit: AutomationExit) => void = () => undefined;
      const exited = new Promise<AutomationExit>((resolve) => (onExit = resolve));
      // Must exist before the workbench loads: it looks the function up when the tests end.
      await page.exposeFunction('codeAutomationExit', (code: unknown, logs: unknown) => {
        onExit({ code: Number(code), logs: Array.isArray(logs) ? (logs as AutomationExit['logs']) : [] });
      });
      const payload: Array<[string, string]> = [
        ['extensionDevelopmentPath', session.remoteUri(repoRoot)],
        ['extensionTestsPath', session.remoteUri(path.join(repoRoot, 'out', 'test', 'integration', 'suite', 'index'))],
        ['skipWelcome', 'true'],
        ['skipReleaseNotes', 'true'],
      ];
      await page.goto(session.workbenchUrl(payload));
      const { code, logs } = await exited;
      const passed = reportSummary(LABEL, readSummary(session.resultFile), code);
      return { passed, logs };
    },
  );
}

main();
