// The "Get started with SEED Studio" walkthrough end to end in code-server, like a user: every step's button opens
// its view (trainer status, the demo experiment and SEED: Train's stage picker, the dashboard, a trajectory's gate
// heatmap, a comparison, the skill review, the template picker), and the walkthrough then marks the step done
// (its completion event fired). The workspace holds the fixture run (trajectories with gates and a skills.jsonl).
//
// The demo step's view, the demo experiment open in the editor, is photographed as the walkthrough shows it.
//
//   npm run build && node out/test/ui/walkthrough.js      (npm run test:ui:walkthrough)
//   node out/test/ui/walkthrough.js --pictures           also replaces the walkthrough's picture of that step
//
// Writes test-results/ui-walkthrough-demo-experiment.png (with --pictures: the step's media/walkthrough/ image) and
// ui-experiment-picker.png (SEED: Train's experiment picker, which must not list the workspace's test fixture); on
// failure, test-results/ui-walkthrough-failure-<step>-<try>.png.
import { cpSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, resultsDir, runCodeServerTest, runnerPrerequisites } from '../integration/codeServerSession';
import type { Locator, Page } from 'playwright-core';
import { fail, firstLine } from './workbench';
import { shoot, walkthroughImage } from './pictures';
import { WALKTHROUGH_STEPS, stepIsComplete } from './walkthroughSteps';

const LABEL = 'walkthrough ui (code-server)';
/** The step whose view is photographed, and the most its picture may weigh (it ships in the extension). */
const PICTURED_STEP = 'runDemo';
const MAX_PICTURE_BYTES = 200 * 1024;
const OTHER_EXPERIMENT = 'household-seed.seed.yaml';

/** The demo experiment in the editor, as the walkthrough's picture of its step: into test-results/, or with
 * --pictures over the step's image in media/walkthrough/. */
async function demoPicture(page: Page, region: Locator, python: string): Promise<string> {
  const image = walkthroughImage(PICTURED_STEP);
  const file = process.argv.includes('--pictures') ? path.join(repoRoot, image) : path.join(resultsDir, 'ui-walkthrough-demo-experiment.png');
  // The earlier steps' notifications (the trainer status) off the picture, as a user closes them.
  const clear = page.locator('.notifications-toasts .notification-toast .codicon-notifications-clear');
  for (let left = 5; left > 0 && (await clear.count()) > 0; left -= 1) await clear.first().click({ timeout: 5_000 });
  await page.mouse.move(0, 0); // no hover tooltip over the editor
  await page.waitForTimeout(1_000); // the editor finishes drawing its CodeLens and highlighting
  const size = await shoot(region, file, python);
  if (size > MAX_PICTURE_BYTES) fail(`${path.relative(repoRoot, file)} weighs ${(size / 1024).toFixed(0)} KB, more than ${MAX_PICTURE_BYTES / 1024} KB`);
  return `picture: ${path.relative(repoRoot, file)} (${(size / 1024).toFixed(0)} KB)`;
}

function main(): void {
  const python = runnerPrerequisites(LABEL, 'dist/webview/trajectory.js', 'dist/webview/review.js', 'dist/webview/dashboard.js', 'dist/webview/diff.js');
  runCodeServerTest(
    { label: LABEL, artifactName: 'ui-walkthrough', timeoutSeconds: 600, session: { label: 'ui-walkthrough', env: { SEED_PYTHON: python }, installExtension: true } },
    async (session) => {
      cpSync(path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid'), path.join(session.workspace, 'runs', 'valid'), { recursive: true });
      // An experiment of the user's and a test fixture's: Train's picker offers the first, never the second.
      cpSync(path.join(repoRoot, 'examples', OTHER_EXPERIMENT), path.join(session.workspace, 'experiments', OTHER_EXPERIMENT));
      cpSync(path.join(repoRoot, 'test', 'fixtures', 'experiments', 'bad-enum.seed.yaml'), path.join(session.workspace, 'test', 'fixtures', 'bad-enum.seed.yaml'));
      mkdirSync(resultsDir, { recursive: true });
      const page = await session.openBrowser();
      await page.goto(session.workbenchUrl());
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      await page.locator('.part.activitybar a.action-label[aria-label^="SEED"]').first().waitFor({ timeout: 60_000 });
      await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' }).first().waitFor({ timeout: 60_000 });
      let passed = 0;
      let failed = 0;
      for (const step of WALKTHROUGH_STEPS) {
        const started = Date.now();
        // Checked once, before any try: a try that failed after its command ran has completed the step.
        let early = false;
        try {
          early = await stepIsComplete(page, step.id, 0);
        } catch (error) {
          // The walkthrough page did not open: the tries below open it again (and fail the step if they cannot).
          console.log(`${LABEL}: ${step.title}: not checked as undone first (${firstLine(error)})`);
        }
        if (early) {
          failed += 1;
          console.error(`${LABEL}: ✗ ${step.title}: the step was already marked done before its button was used`);
          continue;
        }
        // A second try, as a user would click again: a picker of the workbench's own (the palette, the walkthrough
        // list) can still close as it opens when a page takes the focus back. Both tries' errors are printed.
        const errors: string[] = [];
        for (let attempt = 1; attempt <= 2; attempt += 1) {
          try {
            const { notes, region } = await step.drive(page, { workspace: session.workspace, gated: 'household-seed', trajectory: 'it-000001-0001', otherExperiment: OTHER_EXPERIMENT });
            if (step.id === PICTURED_STEP) notes.push(await demoPicture(page, region, python));
            await page.keyboard.press('Escape'); // a picker the step left open
            if (!(await stepIsComplete(page, step.id))) fail('the walkthrough did not mark the step done');
            passed += 1;
            const retried = errors.length ? ` on the second try (the first: ${errors[0]})` : '';
            console.log(`${LABEL}: ✓ ${step.title} (${((Date.now() - started) / 1000).toFixed(1)} s)${retried}`);
            for (const note of notes) console.log(`    ${note}`);
            break;
          } catch (error) {
            errors.push(firstLine(error));
            await page.screenshot({ path: path.join(resultsDir, `ui-walkthrough-failure-${step.id}-${attempt}.png`) }).catch(() => undefined);
            await page.keyboard.press('Escape');
            await page.keyboard.press('Escape');
          }
        }
        if (errors.length === 2) {
          failed += 1;
          console.error(`${LABEL}: ✗ ${step.title}: ${errors.join(' | then, on the second try: ')}`);
        }
      }
      console.log(`${LABEL}: ${passed} passed, ${failed} failed`);
      return { passed: failed === 0 };
    },
  );
}

main();
