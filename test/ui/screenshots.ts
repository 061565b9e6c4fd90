// Regenerates the pictures of the walkthrough and of docs/user-guide.md from the real product: trains two small real
// runs of the shipped tiny policy on the household environment (Stage-1 collection with the oracle analyzer, and
// Stage-2 SEED with `report_to: [tensorboard]`), opens code-server in headless Chromium, walks the walkthrough's
// steps (test/ui/walkthroughSteps.ts) and photographs the region each one opened, then the Runs view and
// "SEED: Open in TensorBoard". Images are cropped to that region and reduced to a 64-colour palette (Pillow, from the
// trainer's environment) so the set stays a few hundred KB.
//
//   npm run screenshots      (= npm run build && node out/test/ui/screenshots.js)
//   npm run screenshots -- DIR   reuses the experiments and runs/ of an earlier workspace DIR instead of training
//
// A view that does not open is reported and the others are still taken; the exit code says whether all were.
// Writes media/walkthrough/*.png (the file names package.json's walkthrough steps give) and media/guide/*.png.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { repoRoot, runCodeServerTest, runnerPrerequisites } from '../integration/codeServerSession';
import { shoot, walkthroughImages } from './pictures';
import { fail, palette, treeRow, webview } from './workbench';
import { WALKTHROUGH_STEPS } from './walkthroughSteps';

const LABEL = 'screenshots';
const GUIDE_DIR = path.join(repoRoot, 'media', 'guide');

const COMMON = ['seed: 0', 'model:', '  path: builtin:household-tiny', '  device: cpu', 'environment:', '  name: household'];
const ROLLOUT = ['rollout:', '  tasks_per_update: 2', '  group_size: 4', '  max_steps: 5', '  history: 2', '  max_prompt_tokens: 512', '  max_response_tokens: 32'];

/** The two runs the pictures show, trained here with the trainer's CLI (a few minutes on a CPU). */
function trainRuns(workspace: string, python: string): void {
  const write = (name: string, lines: string[]): string => {
    const file = path.join(workspace, `${name}.seed.yaml`);
    writeFileSync(file, `${[`name: ${name}`, ...lines].join('\n')}\n`);
    return file;
  };
  const stage1 = write('household-stage1', [...COMMON, ...ROLLOUT, 'analyzer:', '  kind: oracle', 'collect:', '  tasks_per_type: 1', '  rollouts_per_task: 2']);
  const seed = write('household-seed', [
    'algorithm: seed', 'updates: 3', ...COMMON, ...ROLLOUT, 'analyzer:', '  kind: oracle',
    'rl:', '  lr: 3.0e-4', '  micro_batch_size: 8', 'eval:', '  tasks: 6', '  splits: [valid_seen]', '  every: 3', 'report_to: [tensorboard]',
  ]);
  const env = { ...process.env, OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };
  for (const [command, experiment] of [['collect', stage1], ['train', seed]] as const) {
    const started = Date.now();
    execFileSync(python, ['-m', 'seed_trainer', command, experiment], { cwd: workspace, stdio: ['ignore', 'ignore', 'inherit'], env, timeout: 1_200_000 });
    console.log(`${LABEL}: ${command} ${path.basename(experiment)} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
}

/** A picture of the region, reported with its size. */
async function picture(region: Locator, file: string, python: string): Promise<void> {
  const size = await shoot(region, file, python);
  console.log(`${LABEL}: ${path.relative(repoRoot, file)} (${(size / 1024).toFixed(0)} KB)`);
}

async function runsView(page: Page): Promise<Locator> {
  await page.locator('.part.activitybar a.action-label[aria-label^="SEED"]').first().click();
  await treeRow(page, 'household-seed');
  await treeRow(page, 'Update 3');
  await treeRow(page, 'group 0');
  await page.locator('.monaco-list-row', { hasText: '#0' }).first().waitFor({ timeout: 15_000 });
  return page.locator('.part.sidebar .split-view-view').first(); // the Runs pane
}

async function tensorBoard(page: Page): Promise<Locator> {
  await palette(page, 'SEED: Open in TensorBoard');
  const browser = page.locator('.tabs-container .tab', { hasText: 'Simple Browser' }).first();
  await browser.waitFor({ state: 'visible', timeout: 120_000 });
  // TensorBoard's own page inside the Simple Browser's frame: wait for its scalar cards to be drawn.
  const inner = webview(page).frameLocator('iframe');
  await inner.locator('text=success').first().waitFor({ state: 'visible', timeout: 120_000 });
  await page.waitForTimeout(3_000);
  return page.locator('.part.editor');
}

function main(): void {
  const python = runnerPrerequisites(LABEL, 'dist/webview/trajectory.js', 'dist/webview/review.js', 'dist/webview/dashboard.js', 'dist/webview/diff.js');
  const images = walkthroughImages();
  runCodeServerTest(
    { label: LABEL, artifactName: 'screenshots', timeoutSeconds: 2400, session: { label: 'screenshots', env: { SEED_PYTHON: python }, installExtension: true } },
    async (session) => {
      const reuse = process.argv[2];
      if (reuse) cpSync(path.resolve(reuse), session.workspace, { recursive: true });
      else trainRuns(session.workspace, python);
      const seedRuns = readdirSync(path.join(session.workspace, 'runs')).filter((name) => name.includes('household-seed'));
      if (seedRuns.length !== 1) fail(`expected one household-seed run, found ${seedRuns.join(', ')}`);
      const page = await session.openBrowser();
      await page.setViewportSize({ width: 1280, height: 760 });
      await page.goto(session.workbenchUrl());
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      await page.locator('.part.activitybar a.action-label[aria-label^="SEED"]').first().waitFor({ timeout: 60_000 });

      const shots: Array<[string, string, () => Promise<Locator>]> = WALKTHROUGH_STEPS.map((step) => [
        step.title,
        path.join(repoRoot, images.get(step.id) ?? fail(`package.json's walkthrough has no step ${step.id}`)),
        async () => {
          const { region, notes } = await step.drive(page, { workspace: session.workspace, gated: 'household-seed · seed', trajectory: 'gate heatmap', otherExperiment: 'household-seed.seed.yaml' });
          console.log(`${LABEL}: ${step.title}: ${notes.join('; ')}`);
          await page.waitForTimeout(1_500); // charts and the heatmap finish drawing
          return region;
        },
      ]);
      shots.push(['Runs view', path.join(GUIDE_DIR, 'runs-view.png'), () => runsView(page)]);
      shots.push(['TensorBoard', path.join(GUIDE_DIR, 'tensorboard.png'), () => tensorBoard(page)]);
      const failed: string[] = [];
      for (const [title, file, open] of shots) {
        try {
          await picture(await open(), file, python);
        } catch (error) {
          failed.push(title);
          console.error(`${LABEL}: ✗ ${title}: ${error instanceof Error ? error.message : String(error)}`);
        }
        await page.keyboard.press('Escape');
      }
      console.log(`${LABEL}: ${shots.length - failed.length} passed, ${failed.length} failed`);
      return { passed: failed.length === 0 };
    },
  );
}

main();
