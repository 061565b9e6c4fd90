// UI smoke test, end to end like a user: code-server with the extension installed (a symlink in its extensions
// folder), the fixture workspace open, headless Chromium. Runs "SEED: Show Trainer Status" from the command palette
// and reads the notification it shows; then opens an invalid experiment, reads its diagnostic in the Problems view,
// runs "SEED: Train" and checks that the refusal quotes the line `python -m seed_trainer validate` prints.
//
//   npm run build && node out/test/ui/smoke.js      (npm run test:ui)
//
// Environment: SEED_PYTHON (trainer interpreter; default: the repository's .venv), CHROMIUM_PATH (default
// /usr/bin/chromium), SEED_CODE_SERVER_DIR, SEED_TEST_TIMEOUT_S (default 150), SEED_KEEP_TEMP.
// Then a launch the trainer itself refuses (exit 2 before it writes anything) offers Show Log only. Last, typos in an
// experiment fixed from the quick fix list and an absurd value's warning on hover (experimentQuickFix.ts).
// Writes test-results/ui-smoke-trainer-status.png, ui-smoke-train-refused.png, ui-smoke-new-experiment-name.png,
// ui-smoke-trainer-refused-launch.png, ui-experiment-quickfix.png and ui-experiment-warning-hover.png.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { type CodeServerSession, readManifest, resultsDir, runCodeServerTest, runnerPrerequisites } from '../integration/codeServerSession';
import { palette } from './workbench';
import { quickFixesAndWarning, writeTyposExperiment } from './experimentQuickFix';

const LABEL = 'ui smoke';
const COMMAND_TITLE = 'SEED: Show Trainer Status';

/** Runs a command from the palette (workbench.ts) and waits for the palette to close; returns the tries it took. */
async function runFromPalette(page: Page, title: string): Promise<number> {
  const attempts = await palette(page, title, (message) => console.log(`${LABEL}: ${message}`));
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 5_000 });
  return attempts;
}

/** Title of the extension's first activity-bar view container, from package.json. */
function activityBarTitle(): string | undefined {
  const manifest = readManifest() as { contributes?: { viewsContainers?: { activitybar?: Array<{ title: string }> } } };
  return manifest.contributes?.viewsContainers?.activitybar?.[0]?.title;
}

/** Runs the command from the palette and checks the notification; throws with what is wrong. */
async function showTrainerStatus(session: CodeServerSession, page: Page): Promise<void> {
  const started = Date.now();
  await page.goto(session.workbenchUrl());
  // The workbench is up and the fixture folder is open once the explorer lists its README.
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' }).first().waitFor({ timeout: 60_000 });
  // The extension's activity-bar entry appears once the workbench has its contributions (commands included).
  const container = activityBarTitle();
  if (container) await page.locator(`.part.activitybar a.action-label[aria-label="${container}"]`).waitFor({ timeout: 60_000 });

  const attempts = await runFromPalette(page, COMMAND_TITLE);
  const message = page.locator('.notifications-toasts .notification-list-item-message', { hasText: 'SEED trainer:' }).first();
  // A command that fails (e.g. the extension did not activate) shows a modal dialog instead: fail at once with it.
  const errorDialog = page.locator('.monaco-dialog-box').first();
  await message.or(errorDialog).waitFor({ state: 'visible', timeout: 90_000 });
  if (await errorDialog.isVisible()) {
    throw new Error(`VS Code showed an error dialog: ${((await errorDialog.textContent()) ?? '').trim()}`);
  }
  const text = (await message.textContent())?.trim() ?? '';
  mkdirSync(resultsDir, { recursive: true });
  const screenshot = path.join(resultsDir, 'ui-smoke-trainer-status.png');
  await page.screenshot({ path: screenshot });
  console.log(`${LABEL}: notification: ${text}`);
  console.log(`${LABEL}: palette tries: ${attempts}; ${((Date.now() - started) / 1000).toFixed(1)} s from browser start; screenshot ${path.relative(process.cwd(), screenshot)}`);

  const problems: string[] = [];
  if (!text.includes('seed_trainer') || !text.includes('torch')) problems.push('it does not mention seed_trainer and torch');
  if (!/seed_trainer \d/.test(text)) problems.push('seed_trainer has no version (not importable?)');
  if (!/torch \d/.test(text)) problems.push('torch has no version (not importable?)');
  if (problems.length > 0) throw new Error(`the notification is wrong: ${problems.join('; ')}`);
}

// An experiment the editor used to accept (it knew only the `sdar` rule between fields) and the trainer refused.
const INVALID_NAME = 'invalid-ui.seed.yaml';
const INVALID_TEXT = 'name: ui\nmodel:\n  path: m\nanalyzer:\n  kind: external\n';

/** The diagnostic of an invalid experiment in the Problems view, and SEED: Train refusing it with the trainer's line. */
async function trainRefusesInvalid(session: CodeServerSession, page: Page, python: string): Promise<void> {
  const file = path.join(session.workspace, INVALID_NAME);
  const validate = spawnSync(python, ['-m', 'seed_trainer', 'validate', file], { encoding: 'utf8', timeout: 60_000 });
  const trainerLine = validate.stdout.split('\n')[0] ?? '';
  if (validate.status !== 2 || !trainerLine.startsWith(`${file}:`)) {
    throw new Error(`the trainer's validate should refuse ${file} (exit ${validate.status}): ${validate.stdout}${validate.stderr}`);
  }
  const message = trainerLine.slice(trainerLine.indexOf(': ') + 2);

  await page.keyboard.press('Control+P');
  const quickOpen = page.locator('.quick-input-widget .quick-input-box input');
  await quickOpen.waitFor({ state: 'visible', timeout: 15_000 });
  await quickOpen.fill(INVALID_NAME);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: INVALID_NAME }).first().waitFor({ timeout: 15_000 });
  await page.keyboard.press('Enter');
  await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 30_000 });
  await page.keyboard.press('Control+Shift+M');
  const diagnostic = page.locator('.markers-panel .monaco-list-row', { hasText: message }).first();
  await diagnostic.waitFor({ timeout: 30_000 });
  console.log(`${LABEL}: Problems view: ${((await diagnostic.textContent()) ?? '').trim()}`);

  await page.locator('.monaco-editor .view-lines').first().click();
  await runFromPalette(page, 'SEED: Train');
  const toast = page.locator('.notifications-toasts .notification-list-item-message', { hasText: 'SEED: cannot train:' }).first();
  await toast.waitFor({ state: 'visible', timeout: 30_000 });
  const text = ((await toast.textContent()) ?? '').trim();
  await page.screenshot({ path: path.join(resultsDir, 'ui-smoke-train-refused.png') });
  console.log(`${LABEL}: refusal: ${text}`);
  if (text !== `SEED: cannot train: ${trainerLine}`) {
    throw new Error(`the refusal does not quote the trainer: got "${text}", the trainer printed "${trainerLine}"`);
  }
}

/** New Experiment's name box (issue 41 item 5): a name with spaces is accepted, the box says the file it will be
 * saved as (information, not an error), and Enter confirms it. */
async function newExperimentWithSpaces(session: CodeServerSession, page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  await runFromPalette(page, 'SEED: New Experiment').catch(() => undefined);
  const widget = page.locator('.quick-input-widget');
  const input = widget.locator('.quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill('Quick CPU check');
  await widget.locator('.monaco-list-row', { hasText: 'Quick CPU check' }).first().click();
  // The name box: type a name with spaces; the message under it is the file name, not an error.
  await widget.locator('.quick-input-message').waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill('my first run');
  const message = widget.locator('.quick-input-message', { hasText: 'Saved as my-first-run.seed.yaml' });
  await message.waitFor({ state: 'visible', timeout: 10_000 });
  const severity = await widget.locator('.quick-input-box .monaco-inputbox').getAttribute('class');
  await page.screenshot({ path: path.join(resultsDir, 'ui-smoke-new-experiment-name.png') });
  if (/\berror\b/.test(severity ?? '')) throw new Error(`the name box shows an error for a name with spaces (${severity})`);
  await page.keyboard.press('Enter');
  // Enter confirmed the name: the save dialog (code-server's simple dialog, a quick input) proposes the file name.
  const target = path.join(session.workspace, 'my-first-run.seed.yaml');
  let proposed = '';
  for (let waited = 0; !proposed.endsWith('my-first-run.seed.yaml') && waited < 15_000; waited += 250) {
    await page.waitForTimeout(250);
    proposed = (await input.isVisible()) ? await input.inputValue() : '';
  }
  if (!proposed.endsWith('my-first-run.seed.yaml')) throw new Error(`Enter did not confirm the name: the box holds "${proposed}"`);
  if (proposed !== target) await input.fill(target);
  await page.keyboard.press('Enter');
  await page.locator('.tabs-container .tab', { hasText: 'my-first-run.seed.yaml' }).first().waitFor({ state: 'visible', timeout: 30_000 });
  console.log(`${LABEL}: New Experiment: "my first run" → ${path.basename(target)}`);
}

// Valid for the editor (a missing local model.path is a warning there), refused by the trainer's preflight: exit 2
// before it creates the run folder.
const REFUSED_NAME = 'refused-ui.seed.yaml';
const REFUSED_TEXT = 'name: refused-ui\nalgorithm: grpo\nupdates: 1\nmodel:\n  path: ./no-such-model\n  device: cpu\nenvironment:\n  name: household\n';

/** A launch the trainer refuses (issue 41 item 6): the error says nothing was written and offers Show Log only, not an
 * "Open Run Folder" that did nothing (there is no folder). */
async function trainerRefusesLaunch(session: CodeServerSession, page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+P');
  const quickOpen = page.locator('.quick-input-widget .quick-input-box input');
  await quickOpen.waitFor({ state: 'visible', timeout: 15_000 });
  await quickOpen.fill(REFUSED_NAME);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: REFUSED_NAME }).first().waitFor({ timeout: 15_000 });
  await page.keyboard.press('Enter');
  await page.locator('.tabs-container .tab.active', { hasText: REFUSED_NAME }).waitFor({ state: 'visible', timeout: 30_000 });
  await page.locator('.monaco-editor .view-lines').first().click();
  // SEED: Train takes the experiment in the editor, then asks for the stage: the file's algorithm comes first.
  await palette(page, 'SEED: Train', (message) => console.log(`${LABEL}: ${message}`));
  const stage = page.locator('.quick-input-widget .quick-input-list .monaco-list-row:visible', { hasText: 'this file’s algorithm' }).first();
  await stage.waitFor({ state: 'visible', timeout: 30_000 });
  await stage.click();
  const toast = page.locator('.notifications-toasts .notification-list-item', { hasText: 'the trainer could not start run' }).first();
  await toast.waitFor({ state: 'visible', timeout: 120_000 });
  const text = ((await toast.locator('.notification-list-item-message').textContent()) ?? '').trim();
  const buttons = (await toast.locator('.notification-list-item-buttons-container .monaco-button').allTextContents()).map((b) => b.trim());
  await page.screenshot({ path: path.join(resultsDir, 'ui-smoke-trainer-refused-launch.png') });
  console.log(`${LABEL}: refused launch: ${text} [${buttons.join(' | ')}]`);
  if (!/[.!?] Nothing was written/.test(text)) throw new Error(`the message does not say that nothing was written: "${text}"`);
  if (buttons.join() !== 'Show Log') throw new Error(`the message offers ${buttons.join(', ') || 'nothing'}, expected Show Log only`);
  const runs = path.join(session.workspace, 'runs');
  const written = existsSync(runs) ? readdirSync(runs).filter((name) => name.includes('refused-ui')) : [];
  if (written.length > 0) throw new Error(`the refused launch left ${written.join(', ')} in runs/`);
}

function main(): void {
  const python = runnerPrerequisites(LABEL);
  runCodeServerTest(
    { label: LABEL, artifactName: 'ui-smoke', timeoutSeconds: 150, session: { label: 'ui-smoke', env: { SEED_PYTHON: python }, installExtension: true } },
    async (session) => {
      writeFileSync(path.join(session.workspace, INVALID_NAME), INVALID_TEXT);
      writeFileSync(path.join(session.workspace, REFUSED_NAME), REFUSED_TEXT);
      writeTyposExperiment(session);
      const page = await session.openBrowser();
      const checks: [string, () => Promise<void>][] = [
        [`"${COMMAND_TITLE}" shows the trainer and torch versions`, () => showTrainerStatus(session, page)],
        ['an invalid experiment: its diagnostic, and SEED: Train refusing it with the trainer\'s line', () => trainRefusesInvalid(session, page, python)],
        ['New Experiment: a name with spaces is accepted with Enter, the box says the file name', () => newExperimentWithSpaces(session, page)],
        ['a launch the trainer refuses: nothing written, Show Log only (no Open Run Folder)', () => trainerRefusesLaunch(session, page)],
        ['typos in an experiment: Ctrl+. offers and applies the fixes; the absurd group size warns on hover', async () => {
          for (const note of await quickFixesAndWarning(page)) console.log(`    ${note}`);
        }],
      ];
      let passed = 0;
      for (const [name, check] of checks) {
        try {
          await check();
          passed += 1;
          console.log(`${LABEL}: ✓ ${name}`);
        } catch (error) {
          console.error(`${LABEL}: ✗ ${name}: ${error instanceof Error ? error.message : String(error)}`);
          break; // the next check needs the page in the state this one leaves
        }
      }
      console.log(`${LABEL}: ${passed} passed, ${checks.length - passed} failed`);
      return { passed: passed === checks.length };
    },
  );
}

main();
