// UI test, like a user: code-server with the extension installed, a workspace holding a tiny local policy and one
// experiment, headless Chromium. Runs "SEED: Train" from the command palette, picks the stage, waits for the run in
// the status bar and the Runs view, opens the live dashboard from the status bar, checks that its charts draw, saves
// a screenshot, and stops the run with "SEED: Stop Run".
//
//   npm run build && node out/test/ui/trainDashboard.js
//
// Environment: SEED_PYTHON, CHROMIUM_PATH, SEED_CODE_SERVER_DIR, SEED_TEST_TIMEOUT_S (default 180), SEED_KEEP_TEMP.
// Writes test-results/ui-train-progress.png (the progress notification and the status bar naming the run by its
// title) and ui-train-dashboard.png.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type CodeServerSession, repoRoot, resultsDir, runCodeServerTest, runnerPrerequisites } from '../integration/codeServerSession';
import type { Page } from 'playwright-core';
import { killTrainers, runDirs } from './trainerRuns';
import { fail, firstLine, palette, webview } from './workbench';

const LABEL = 'ui train + dashboard';

/** The tiny policy, the experiment and the trainer's settings, written before the workbench opens. */
function prepareWorkspace(session: CodeServerSession, python: string): void {
  const model = path.join(session.workspace, 'models', 'tiny');
  const script = [
    'import sys',
    'from seed_trainer.models.tiny import save_tiny_policy',
    'corpus = ["Your task is to: set the counter to 3. The counter shows 0. add one. finish.",',
    '          "<think>add one</think><action>add one</action>", "Admissible actions: add one, finish."] * 20',
    'save_tiny_policy(sys.argv[1], corpus, vocab_size=300)',
  ].join('\n');
  execFileSync(python, ['-c', script, model], { stdio: 'pipe', timeout: 120_000 });
  writeFileSync(
    path.join(session.workspace, 'tiny-grpo.seed.yaml'),
    [
      '# A tiny Stage-2 run on the test environment of the trainer (trainer/tests/support/counter_env.py).',
      'name: tiny-grpo',
      'algorithm: grpo',
      'updates: 100000',
      'model:',
      '  path: models/tiny',
      '  device: cpu',
      'environment:',
      '  name: counter_env:CounterTasks',
      'rollout: {tasks_per_update: 2, group_size: 2, max_steps: 2, history: 1, max_prompt_tokens: 256, max_response_tokens: 6}',
      'rl: {mini_batch_size: 4, micro_batch_size: 2, lr: 1.0e-4}',
      '',
    ].join('\n'),
  );
  const settingsFile = path.join(session.userDataDir, 'User', 'settings.json');
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
  settings['seedStudio.trainer.env'] = { PYTHONPATH: path.join(repoRoot, 'trainer', 'tests', 'support'), OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };
  writeFileSync(settingsFile, `${JSON.stringify(settings, null, 2)}\n`);
}

/** Runs one stage of the test; a failure says which stage (Playwright's own message names only the timeout). */
async function during<T>(stage: string, body: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await body();
  } catch (error) {
    throw new Error(`${stage} (after ${((Date.now() - started) / 1000).toFixed(1)} s): ${firstLine(error)}`);
  }
}

/** The progress notification and the status bar name the run alike, by the Runs tree's title, never by its id
 * (issue 54 item 9); photographed together. */
async function progressNamesTheRun(session: CodeServerSession, page: Page): Promise<string> {
  const message = page.locator('.notifications-toasts .notification-list-item-message', { hasText: /tiny-grpo · grpo — update \d+\/100000/ }).first();
  await message.waitFor({ state: 'visible', timeout: 30_000 });
  const text = ((await message.textContent()) ?? '').trim();
  const bar = ((await page.locator('.statusbar-item', { hasText: /SEED tiny-grpo · grpo/ }).first().textContent()) ?? '').trim();
  const id = path.basename(runDirs(session)[0] ?? fail('no run folder'));
  if (!/^SEED: tiny-grpo · grpo — update \d+\/100000/.test(text) || text.includes(id)) fail(`the progress notification says "${text}" (the run's id: ${id})`);
  if (!bar.startsWith('SEED tiny-grpo · grpo ') || bar.includes(id)) fail(`the status bar says "${bar}"`);
  mkdirSync(resultsDir, { recursive: true });
  await page.screenshot({ path: path.join(resultsDir, 'ui-train-progress.png') });
  return `progress notification "${text}", status bar "${bar}" (run id ${id} in neither)`;
}

async function trainAndWatch(session: CodeServerSession, python: string): Promise<void> {
  const started = Date.now();
  prepareWorkspace(session, python);
  const page = await session.openBrowser();
  const activity = page.locator('.part.activitybar a.action-label[aria-label^="SEED"]');
  await during('opening the workbench', async () => {
    await page.goto(session.workbenchUrl());
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'tiny-grpo.seed.yaml' }).first().waitFor({ timeout: 60_000 });
    await activity.waitFor({ timeout: 60_000 });
  });

  await during('starting "SEED: Train" from the palette', async () => {
    await palette(page, 'SEED: Train', (message) => console.log(`${LABEL}: ${message}`));
    // The stage pick: the file's own algorithm comes first.
    const stagePick = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Stage 2 · GRPO' }).first();
    await stagePick.waitFor({ state: 'visible', timeout: 30_000 });
    await stagePick.click();
  });

  // The status bar follows the run once the trainer has written run.json and its first update.
  const status = page.locator('.statusbar-item', { hasText: /SEED tiny-grpo · grpo \d+\/100000/ }).first();
  await during('waiting for the run in the status bar and the Runs view', async () => {
    await status.waitFor({ state: 'visible', timeout: 90_000 });
    console.log(`${LABEL}: ${await progressNamesTheRun(session, page)}`);
    await activity.click({ force: true }); // the run-count badge covers the icon
    await page.locator('.pane-body .monaco-list-row', { hasText: 'tiny-grpo' }).first().waitFor({ timeout: 30_000 });
  });

  // The live dashboard, from the status bar item.
  const frame = webview(page);
  await during('opening the live dashboard from the status bar', async () => {
    await status.click();
    await frame.locator('section.card:not([hidden]) canvas').first().waitFor({ state: 'visible', timeout: 60_000 });
  });
  const cards = frame.locator('section.card:not([hidden])');
  const deadline = Date.now() + 30_000;
  while ((await cards.count()) < 5 && Date.now() < deadline) await page.waitForTimeout(250);
  const titles = await cards.locator('h3').allTextContents();
  if (titles.length < 5) throw new Error(`the dashboard shows only ${titles.length} charts: ${titles.join(', ')}`);
  for (const expected of ['Success rate (training rollouts)', 'Episode length (steps)', 'Policy-gradient loss', 'Phase times (s)']) {
    if (!titles.includes(expected)) throw new Error(`the dashboard has no "${expected}" chart (it has: ${titles.join(', ')})`);
  }
  const statusText = (await frame.locator('.status').textContent()) ?? '';
  // The run's title is bidi-isolated (FSI … PDI) so a right-to-left or override character in it cannot reorder the rest.
  if (!statusText.includes('\u2068tiny-grpo · grpo\u2069: running')) throw new Error(`the dashboard's status line says "${statusText}"`);
  await page.waitForTimeout(3_000); // a few more live redraws
  mkdirSync(resultsDir, { recursive: true });
  const screenshot = path.join(resultsDir, 'ui-train-dashboard.png');
  await page.screenshot({ path: screenshot });
  console.log(`${LABEL}: charts: ${titles.join(', ')}`);
  console.log(`${LABEL}: screenshot ${path.relative(process.cwd(), screenshot)}; ${((Date.now() - started) / 1000).toFixed(1)} s`);

  await during('stopping the run with "SEED: Stop Run"', async () => {
    await palette(page, 'SEED: Stop Run');
    const stopped = page.locator('.notifications-toasts .notification-list-item-message', { hasText: /SEED: run tiny-grpo .* stopped/ }).first();
    await stopped.waitFor({ state: 'visible', timeout: 60_000 });
  });
  const [dir] = runDirs(session);
  const manifest = dir ? (JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as { status: string }) : undefined;
  if (manifest?.status !== 'stopped') throw new Error(`run.json says ${manifest?.status ?? 'nothing'} after SEED: Stop Run`);
}

function main(): void {
  const python = runnerPrerequisites(LABEL, 'dist/webview/dashboard.js');
  runCodeServerTest(
    { label: LABEL, artifactName: 'ui-train-dashboard', timeoutSeconds: 180, session: { label: 'ui-train', env: { SEED_PYTHON: python }, installExtension: true } },
    async (session) => {
      try {
        await trainAndWatch(session, python);
      } catch (error) {
        console.error(`${LABEL}: ✗ "SEED: Train" → live dashboard: ${error instanceof Error ? error.message : String(error)}`);
        console.log(`${LABEL}: 0 passed, 1 failed`);
        return { passed: false };
      } finally {
        killTrainers(session);
      }
      console.log(`${LABEL}: ✓ "SEED: Train" from the palette → status bar, Runs view, live dashboard, Stop Run`);
      console.log(`${LABEL}: 1 passed, 0 failed`);
      return { passed: true };
    },
  );
}

main();
