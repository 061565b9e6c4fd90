// The reattach test: one code-server, one workspace, two extension hosts in a row. Phase 1 (reattach/launch.test)
// starts a real trainer run through "SEED: Train" and ends; the runner then loads a new window, whose new extension
// host runs phase 2 (reattach/reattach.test): the run must be found still running, followed, and stopped.
//
//   npm run build && node out/test/integration/runReattach.js
//
// Environment as runInCodeServer.ts (SEED_PYTHON, CHROMIUM_PATH, SEED_CODE_SERVER_DIR, SEED_TEST_TIMEOUT_S, SEED_KEEP_TEMP).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { emptySummary, readSummary, reportSummary, type TestSummary } from './testSummary';
import { repoRoot, runCodeServerTest, runnerPrerequisites, type CodeServerSession } from './codeServerSession';

const LABEL = 'reattach (code-server)';

interface AutomationExit {
  code: number;
  logs: Array<{ relativePath: string; contents: string }>;
}

function trainerPidOf(session: CodeServerSession): number | undefined {
  const state = path.join(session.workspace, '.seed-reattach-test.json');
  if (!existsSync(state)) return undefined;
  try {
    return (JSON.parse(readFileSync(state, 'utf8')) as { pid?: number }).pid;
  } catch {
    return undefined; // being written
  }
}

/** Ends the trainer a failed phase may have left running (its process group), if it is still a trainer. */
function killLeftoverTrainer(pid: number | undefined): void {
  if (!pid) return;
  try {
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('seed_trainer')) return; // gone, and the pid reused
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function main(): void {
  const python = runnerPrerequisites(LABEL, 'out/test/integration/reattach/launchPhase.js', 'out/test/integration/reattach/reattachPhase.js');
  runCodeServerTest(
    { label: LABEL, artifactName: 'integration-reattach', timeoutSeconds: 240, session: { label: 'reattach', env: { SEED_PYTHON: python } } },
    async (session) => {
      // The runner's overall timeout exits without this body's `finally` (and removes the workspace with the
      // state file): remember the trainer's pid as soon as phase 1 writes it, and end it on exit whatever happens.
      let trainerPid: number | undefined;
      const watch = setInterval(() => (trainerPid ??= trainerPidOf(session)), 1000);
      process.once('exit', () => killLeftoverTrainer(trainerPid));
      const page = await session.openBrowser();
      let onExit: (exit: AutomationExit) => void = () => undefined;
      await page.exposeFunction('codeAutomationExit', (code: unknown, logs: unknown) => {
        onExit({ code: Number(code), logs: Array.isArray(logs) ? (logs as AutomationExit['logs']) : [] });
      });
      const phase = async (entry: string): Promise<{ exit: AutomationExit; summary: TestSummary | undefined }> => {
        const exited = new Promise<AutomationExit>((resolve) => (onExit = resolve));
        const payload: Array<[string, string]> = [
          ['extensionDevelopmentPath', session.remoteUri(repoRoot)],
          ['extensionTestsPath', session.remoteUri(path.join(repoRoot, 'out', 'test', 'integration', 'reattach', entry))],
          ['skipWelcome', 'true'],
          ['skipReleaseNotes', 'true'],
        ];
        await page.goto(session.workbenchUrl(payload));
        const exit = await exited;
        return { exit, summary: readSummary(session.resultFile) };
      };
      try {
        const first = await phase('launchPhase');
        const merged: TestSummary = emptySummary();
        const add = (summary: TestSummary | undefined): void => {
          if (!summary) return;
          merged.passes += summary.passes;
          merged.failures += summary.failures;
          merged.pending += summary.pending;
          merged.tests.push(...summary.tests);
          if (summary.error) merged.error = summary.error;
        };
        add(first.summary);
        if (first.exit.code !== 0 || !first.summary) {
          return { passed: reportSummary(LABEL, first.summary ? merged : undefined, first.exit.code), logs: first.exit.logs };
        }
        // A new window: the first extension host is gone, a new one starts and activates the extension again.
        const second = await phase('reattachPhase');
        add(second.summary);
        return { passed: reportSummary(LABEL, second.summary ? merged : undefined, second.exit.code), logs: second.exit.logs };
      } finally {
        clearInterval(watch);
        killLeftoverTrainer(trainerPid ?? trainerPidOf(session));
      }
    },
  );
}

main();
