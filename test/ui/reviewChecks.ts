// Steps of the trajectory & review UI suite (trajectoryReview.ts) on a copy of the fixture run edited for issue 54:
// item 6, a skill written about another episode flagged in the viewer and in the skill review (one about its own
// task not); item 7, the diff of a success and a failure of one task reached from the Runs tree, its badges
// ("well-formed", "no effect" — the last turn's judged by the final observation), the step score explained, the
// episode's Δscore / Δadv said once and a Δg that shows as 0.000 not coloured.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { decodeTokenArrays } from '../../src/runs/core';
import { encodeFloat32 } from '../unit/support/tokenEncoding';
import { type CodeServerSession, repoRoot, resultsDir } from '../integration/codeServerSession';
import { type Json, type TrajectoryJson, copyRunWithEdits } from './editedRun';
import { contextMenuItem, fail, palette, treeRow, webview } from './workbench';

const fixtureRun = path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid');
export const CHECK_RUN = 'household-check';

// The demo's case (issue 54 item 6): a summary and a skill about another task, counting another episode's actions.
const ABOUT_ANOTHER = { text: 'Clean the pan with the fridge before you put it in the cabinet.', summary: 'Task: find two pencil and put them in shelf. Outcome: failure after 24 action(s).' };
const ABOUT_ITS_OWN = { text: 'Heat the mug in the microwave before you carry it to the coffeemachine.', summary: 'Task: heat some mug and put it in the coffeemachine. Outcome: success after 3 action(s).' };
// it-000002-0001 is "clean some knife and put it in the drawer." in 2 steps.
const EXPECTED_NOTE =
  "About another episode? The episode summary does not name this task's knife and drawer. The skill names neither knife nor drawer. " +
  'The summary counts 24 actions; this episode had 2. The teacher was conditioned on it all the same.';

/** Update 2's two skills made about another episode and about its own task; update 1's group 0 made a diff's pair
 * (the tree compares its failure, A, with its success, B): A the success's actions replayed as a failure, its turn 2
 * and its last action answered "Nothing happens.". */
export function prepareCheckRun(session: CodeServerSession): void {
  const success = JSON.parse(readFileSync(path.join(fixtureRun, 'trajectories', 'it-000001.jsonl'), 'utf8').split('\n')[0]!) as TrajectoryJson;
  const to = path.join(session.workspace, 'runs', CHECK_RUN);
  copyRunWithEdits(fixtureRun, to, { id: CHECK_RUN, name: CHECK_RUN }, {
    'it-000001-0001': (b) => Object.assign(b, { final_observation: 'You heat the mug 1 using the microwave 1.' }),
    'it-000001-0002': (a) => {
      const steps = structuredClone(success.steps).map((step) => Object.assign(step, { score: 0, advantage: -0.9 }));
      // Turn 2's tokens are B's with one gate raised by 0.001: a mean Δg (B − A) of about −4e-5, shown as 0.000.
      const tokens = steps[1]!.tokens!;
      const gates = Array.from(decodeTokenArrays(tokens).gate!);
      gates[0] = gates[0]! + 0.001;
      steps[1]!.tokens = { ...tokens, gate: encodeFloat32(gates) };
      steps[2]!.observation = 'Nothing happens.';
      Object.assign(a, { steps, length: steps.length, final_observation: 'Nothing happens.' });
    },
    'it-000002-0001': (record) => Object.assign(record.skill as Json, ABOUT_ANOTHER),
    'it-000002-0002': (record) => Object.assign(record.skill as Json, ABOUT_ITS_OWN),
  });
  const skill = (id: string, task: Json, length: number, about: typeof ABOUT_ANOTHER): Json => ({
    id,
    trajectory: { id, file: 'it-000002.jsonl' },
    task,
    success: true,
    reward: 1,
    length,
    source: 'self',
    model: 'tiny-policy',
    summary: about.summary,
    skill: about.text,
    valid: true,
    reason: null,
    review: { state: 'pending' },
    time: '2026-03-01T12:00:36.000Z',
  });
  const knife = { id: 'household/clean-knife-1', type: 'clean', description: 'clean some knife and put it in the drawer.', split: 'train' };
  const mug = { id: 'household/heat-mug-3', type: 'heat', description: 'heat some mug and put it in the coffeemachine.', split: 'train' };
  const records = [skill('it-000002-0001', knife, 2, ABOUT_ANOTHER), skill('it-000002-0002', mug, 3, ABOUT_ITS_OWN)];
  writeFileSync(path.join(to, 'skills.jsonl'), records.map((record) => `${JSON.stringify(record)}\n`).join(''));
}

/** Types `filter` into the open quick pick and takes its first row. */
export async function pick(page: Page, filter: string): Promise<void> {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(filter);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: filter }).first().waitFor({ timeout: 15_000 });
  await page.keyboard.press('Enter');
}

/** Quick Open (Ctrl+P) of a workspace file: the row showing its name and its folder (rows of recently opened files
 * can linger while the list filters). */
export async function quickOpen(page: Page, relative: string): Promise<void> {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(relative);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: path.basename(relative) }).filter({ hasText: path.dirname(relative) }).first();
  await row.waitFor({ timeout: 15_000 });
  await row.click();
}

const mismatchText = async (page: Page, scope: string): Promise<string[]> =>
  (await webview(page).locator(`${scope} [data-k="mismatch"]`).allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim());

/** The viewer: the skill about another episode flagged above it, the one about its own task not. */
export async function mismatchInViewer(page: Page): Promise<string[]> {
  const open = async (id: string): Promise<void> => {
    await palette(page, 'View: Close All Editors');
    await palette(page, 'SEED: Open Trajectory');
    await pick(page, CHECK_RUN);
    await pick(page, id);
    await webview(page).locator('.skill-panel').waitFor({ state: 'visible', timeout: 30_000 });
  };
  await open('it-000002-0002');
  await webview(page).locator('.skill-panel', { hasText: ABOUT_ITS_OWN.text }).waitFor({ timeout: 15_000 });
  const own = await mismatchText(page, '.skill-panel');
  if (own.length !== 0) fail(`a skill about its own task is flagged: ${own.join(' | ')}`);
  await open('it-000002-0001');
  await webview(page).locator('.skill-panel', { hasText: ABOUT_ANOTHER.text }).waitFor({ timeout: 15_000 });
  const flagged = await mismatchText(page, '.skill-panel');
  if (flagged.length !== 1 || flagged[0] !== EXPECTED_NOTE) fail(`the viewer's note: ${JSON.stringify(flagged)}`);
  await page.screenshot({ path: path.join(resultsDir, 'ui-skill-mismatch-viewer.png') });
  return [`it-000002-0001: "${flagged[0]}"`, 'it-000002-0002 (a skill about its own task): no note'];
}

/** The skill review of the same run's skills.jsonl: the same note on the same skill's card only. */
export async function mismatchInReview(page: Page): Promise<string[]> {
  await palette(page, 'View: Close All Editors');
  await quickOpen(page, `runs/${CHECK_RUN}/skills.jsonl`);
  const frame = webview(page);
  await frame.locator('.card[data-id="it-000002-0002"]').waitFor({ state: 'visible', timeout: 30_000 });
  const flagged = await mismatchText(page, '.card[data-id="it-000002-0001"]');
  const own = await mismatchText(page, '.card[data-id="it-000002-0002"]');
  if (flagged.length !== 1 || flagged[0] !== EXPECTED_NOTE) fail(`the review's note on it-000002-0001: ${JSON.stringify(flagged)}`);
  if (own.length !== 0) fail(`the review flags the skill about its own task: ${own.join(' | ')}`);
  await page.screenshot({ path: path.join(resultsDir, 'ui-skill-mismatch-review.png') });
  return [`card it-000002-0001 flagged with the viewer's note; card it-000002-0002 not`];
}

/** The Runs tree: update 1's mixed group → Compare Trajectories → the diff's labels. */
export async function diffLabels(page: Page): Promise<string[]> {
  await palette(page, 'View: Close All Editors');
  // The SEED icon toggles its view container: clicked only when the Runs view is not already shown.
  const runsView = page.locator('.part.sidebar .pane-header', { hasText: /^runs/i }).first();
  if (!(await runsView.isVisible())) await page.locator('.part.activitybar a.action-label[aria-label^="SEED"]').first().click();
  const collapse = page.locator('.pane-header .action-label[aria-label="Collapse All"]').first();
  await collapse.locator('xpath=ancestor::div[contains(@class,"pane-header")]').hover();
  await collapse.click();
  await treeRow(page, `${CHECK_RUN} · seed`);
  await treeRow(page, 'Update 1');
  // In the sidebar: the quick input's hidden list keeps the rows of its last pick.
  const group = page.locator('.part.sidebar .monaco-list-row[aria-level="3"]', { hasText: 'group 0' }).filter({ hasText: 'heat' }).first();
  await contextMenuItem(page, group, 'Compare Trajectories', 'update 1 · heat group 0');

  const frame = webview(page);
  await frame.locator('.row[data-row="2"]').waitFor({ state: 'visible', timeout: 30_000 });
  const badges = async (side: 'a' | 'b', turn: number): Promise<string> => (await frame.locator(`.cell.side-${side}[data-turn="${turn}"] .badge`).allTextContents()).join(', ');
  const all = await frame.locator('.cell .badge').allTextContents();
  if (all.includes('valid') || all.filter((text) => text === 'well-formed').length !== 6) fail(`badges: ${all.join(', ')}`);
  const seen = { a2: await badges('a', 1), a3: await badges('a', 2), b3: await badges('b', 2) };
  if (seen.a2 !== 'well-formed, no effect') fail(`A's turn 2 (answered "Nothing happens."): ${seen.a2}`);
  if (seen.a3 !== 'well-formed, no effect') fail(`A's last turn (its final observation "Nothing happens."): ${seen.a3}`);
  if (seen.b3 !== 'well-formed') fail(`B's last turn (answered "You heat the mug 1…"): ${seen.b3}`);
  const scoreTitle = (await frame.locator('.cell [data-k="score"]').first().getAttribute('title')) ?? '';
  if (!scoreTitle.startsWith('Step score = rl.reward_scale')) fail(`the score's title: "${scoreTitle}"`);
  const episode = (await frame.locator('[data-k="episode-deltas"]').textContent())?.trim() ?? '';
  if (episode !== 'B − A per turn: Δscore +10.00 Δadv +1.800') fail(`the episode's deltas: "${episode}"`);
  const perRow = await frame.locator('.row .deltas [data-k="score"], .row .deltas [data-k="advantage"]').allTextContents();
  if (perRow.length !== 0) fail(`rows repeat the episode's deltas: ${perRow.join(', ')}`);
  const gate = frame.locator('.row[data-row="1"] [data-k="meanGate"]');
  const gateText = (await gate.textContent()) ?? '';
  const gateClass = (await gate.getAttribute('class')) ?? '';
  if (!/^Δg −?0\.000$/.test(gateText) || gateClass !== 'delta zero') fail(`row 2's gate difference: "${gateText}" (class "${gateClass}")`);
  await page.mouse.move(900, 750); // no tooltip over the tree
  await page.screenshot({ path: path.join(resultsDir, 'ui-diff-labels.png') });
  return [`badges: A turn 2 "${seen.a2}"; A turn 3 "${seen.a3}"; B turn 3 "${seen.b3}"`, `summary: ${episode}; row 2: ${gateText} (${gateClass})`, `score title: ${scoreTitle.slice(0, 60)}…`];
}
