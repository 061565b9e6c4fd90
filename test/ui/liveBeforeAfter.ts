// End to end in code-server, like a user (issue 54 item 2): a train run linked to its base evaluation (run.json
// `baseline_evals`) trains with its node expanded in the Runs tree, whose test_seen row says "no final evaluation
// yet". The run then finishes, its files landing in the order the trainer writes them (stages/train.py,
// stages/evaluate.py, runlog/writer.py), copied from the finished fixture run: the last update's metrics row and
// trajectories; the final evaluation's trajectories and metrics row, then its report eval/test_seen.json (validated
// and fsynced first, so on a loaded machine it lands after the extension has read the metrics row) and its event;
// the checkpoint; run.json `completed`; the `finished` event. The expanded node's row must show the change (0 → 100 %)
// with its interval as soon as the report is there, and keep it once the run completed, without SEED: Refresh Runs.
//
//   npm run build && node out/test/ui/liveBeforeAfter.js
//
// Writes test-results/ui-before-after-live-running.png (the expanded node while the run trains),
// ui-before-after-live-evaluated.png (its final evaluation written) and ui-before-after-live-finished.png (completed);
// the running run's dashboard, its base evaluation the "before" and no evaluation row of its own (issue 54 item 9):
// ui-dashboard-live-baseline.png.
import { appendFileSync, cpSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { type CodeServerSession, repoRoot, resultsDir, runCodeServerTest, runnerPrerequisites } from '../integration/codeServerSession';
import { fail, palette, runUiSteps, webview } from './workbench';

const LABEL = 'live before/after ui (code-server)';
const FIXTURE = path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid');
const TRAIN_ID = '20260304-120000-train-demo';
const BASE_ID = '20260304-110000-eval-demo';

type Json = Record<string, unknown>;

const lines = (file: string): string[] => readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '');
const parsed = (line: string): Json => JSON.parse(line) as Json;
const readJson = (file: string): Json => JSON.parse(readFileSync(file, 'utf8')) as Json;
const jsonLines = (records: readonly Json[]): string => records.map((record) => `${JSON.stringify(record)}\n`).join('');

/** Writes a JSON document as the trainer does (runlog/atomic.py): a temporary file renamed over it. */
function writeAtomic(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}`);
  writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(temp, file);
}

/** The writes that finish the train run, in the trainer's order, in three parts. */
interface Finish {
  /** Update 2 (its metrics row, its trajectories), then the final evaluation's trajectories and metrics row. */
  lastUpdateAndEvaluation: () => void;
  /** eval/test_seen.json, then the `eval` event. */
  evaluationReport: () => void;
  /** The checkpoint and its event, run.json `completed`, the `finished` event. */
  completion: () => void;
}

/**
 * The base evaluation (completed: test_seen 0 % on the fixture's one evaluation task) and the train run as the
 * trainer leaves it after update 1: running (on another host, so that no pid or lock check calls it interrupted),
 * without its last update, its final evaluation and its checkpoint. Returns the writes that finish it.
 */
function prepareRuns(session: CodeServerSession): Finish {
  const runs = path.join(session.workspace, 'runs');
  const train = path.join(runs, TRAIN_ID);
  const base = path.join(runs, BASE_ID);
  const fixtureManifest = readJson(path.join(FIXTURE, 'run.json'));
  const fixtureReport = readJson(path.join(FIXTURE, 'eval', 'test_seen.json')) as Json & { episodes: Json[] };

  // The base evaluation: the fixture's evaluation task, failed.
  writeAtomic(path.join(base, 'run.json'), {
    ...fixtureManifest,
    id: BASE_ID,
    name: 'demo',
    stage: 'eval',
    status: 'completed',
    started: '2026-03-04T11:00:00.000Z',
    ended: '2026-03-04T11:00:20.000Z',
    progress: { step: 1, total: 1, unit: 'split' },
  });
  writeAtomic(path.join(base, 'eval', 'test_seen.json'), {
    ...fixtureReport,
    step: null,
    checkpoint: 'tiny-policy',
    overall: { success: 0, n: 1, mean_length: 4 },
    by_task_type: { heat: { success: 0, n: 1, mean_length: 4 } },
    episodes: fixtureReport.episodes.map(({ trajectory: _, ...episode }) => ({ ...episode, success: false, reward: 0, length: 4 })),
  });
  writeFileSync(path.join(base, 'events.jsonl'), jsonLines([{ time: '2026-03-04T11:00:01.000Z', type: 'started', message: 'eval started', stage: 'eval', pid: 4241 }]));
  writeFileSync(path.join(base, 'metrics.jsonl'), jsonLines([{ step: 0, time: '2026-03-04T11:00:19.000Z', kind: 'eval', split: 'test_seen', 'success/overall': 0, 'success/heat': 0 }]));

  // The train run after update 1.
  const running: Json = {
    ...fixtureManifest,
    id: TRAIN_ID,
    name: 'demo',
    status: 'running',
    host: `${os.hostname()}-elsewhere`,
    started: '2026-03-04T12:00:00.000Z',
    heartbeat: '2026-03-04T12:00:07.500Z',
    progress: { step: 1, total: 2, unit: 'update' },
    baseline_evals: { test_seen: `../${BASE_ID}` },
  };
  delete running.ended;
  writeAtomic(path.join(train, 'run.json'), running);
  const events = lines(path.join(FIXTURE, 'events.jsonl')).map(parsed);
  const metrics = lines(path.join(FIXTURE, 'metrics.jsonl'));
  const index = lines(path.join(FIXTURE, 'trajectories', 'index.jsonl'));
  const rowsOf = (file: string): string => index.filter((line) => parsed(line).file === file).map((line) => `${line}\n`).join('');
  const copy = (relative: string): void => cpSync(path.join(FIXTURE, relative), path.join(train, relative), { recursive: true });
  const append = (relative: string, text: string): void => appendFileSync(path.join(train, relative), text);
  writeFileSync(path.join(train, 'events.jsonl'), jsonLines(events.filter((e) => e.type === 'started' || (e.step === 1 && e.type !== 'checkpoint'))));
  writeFileSync(path.join(train, 'metrics.jsonl'), `${metrics[0]}\n`);
  copy('trajectories/it-000001.jsonl');
  writeFileSync(path.join(train, 'trajectories', 'index.jsonl'), rowsOf('it-000001.jsonl'));

  return {
    lastUpdateAndEvaluation: () => {
      // update 2 (stages/train.py step 6): its metrics row, its trajectories, its progress
      append('metrics.jsonl', `${metrics[1]}\n`);
      copy('trajectories/it-000002.jsonl');
      append('trajectories/index.jsonl', rowsOf('it-000002.jsonl'));
      append('events.jsonl', jsonLines(events.filter((e) => e.step === 2 && (e.type === 'progress' || e.type === 'iteration'))));
      writeAtomic(path.join(train, 'run.json'), { ...running, progress: { step: 2, total: 2, unit: 'update' }, heartbeat: '2026-03-04T12:00:13.500Z' });
      // the final evaluation (stages/evaluate.py): its trajectories, then its metrics row
      copy('trajectories/eval-test_seen.jsonl');
      append('trajectories/index.jsonl', rowsOf('eval-test_seen.jsonl'));
      append('metrics.jsonl', `${metrics[2]}\n`);
    },
    evaluationReport: () => {
      writeAtomic(path.join(train, 'eval', 'test_seen.json'), fixtureReport);
      append('events.jsonl', jsonLines(events.filter((e) => e.type === 'eval')));
    },
    completion: () => {
      copy('checkpoints');
      append('events.jsonl', jsonLines(events.filter((e) => e.type === 'checkpoint')));
      writeAtomic(path.join(train, 'run.json'), {
        ...running,
        status: 'completed',
        progress: { step: 2, total: 2, unit: 'update' },
        ended: '2026-03-04T12:00:42.000Z',
        heartbeat: '2026-03-04T12:00:42.000Z',
      });
      append('events.jsonl', jsonLines([{ time: '2026-03-04T12:00:42.000Z', type: 'finished', message: '2 updates completed', status: 'completed' }]));
    },
  };
}

const runRow = (page: Page) => page.locator('.part.sidebar .monaco-list-row[aria-level="1"]', { hasText: 'demo · seed' }).first();
const childRows = (page: Page) => page.locator('.part.sidebar .monaco-list-row[aria-level="2"]');
/** The split's before → after row: its icon an arrow (the split also names the evaluation's batch). */
const changeRow = (page: Page) => childRows(page).filter({ has: page.locator('.codicon-arrow-up, .codicon-arrow-down, .codicon-arrow-both') }).filter({ hasText: 'test_seen' }).first();

/** The run's rows as drawn (for a failure's message). */
async function drawnRows(page: Page): Promise<string> {
  const texts = await page.locator('.part.sidebar .monaco-list-row[aria-level="1"], .part.sidebar .monaco-list-row[aria-level="2"]').allTextContents();
  return JSON.stringify(texts.map((text) => text.replace(/[\u2068\u2069]/g, '').trim()));
}

async function screenshot(page: Page, name: string): Promise<void> {
  await page.mouse.move(1000, 600); // no hover over the tree
  await page.screenshot({ path: path.join(resultsDir, name) });
}

/** Waits for the before/after row to say `description`; fails with what the node shows instead. */
async function expectChange(page: Page, description: RegExp, when: string): Promise<string> {
  const row = changeRow(page);
  try {
    await row.locator('.label-description', { hasText: description }).waitFor({ state: 'visible', timeout: 15_000 });
  } catch {
    fail(`${when}, the expanded node shows no test_seen row saying ${description} after 15 s: ${await drawnRows(page)}`);
  }
  return ((await row.locator('.label-description').textContent()) ?? '').trim();
}

/** The SEED view container, the running run's node expanded: its before/after row says there is no final evaluation yet. */
async function expandRunning(page: Page): Promise<string[]> {
  await page.locator('.part.activitybar a.action-label[aria-label^="SEED"]').first().click();
  const row = runRow(page);
  await row.waitFor({ state: 'visible', timeout: 60_000 });
  await row.locator('.codicon-sync').first().waitFor({ timeout: 15_000 });
  if ((await row.getAttribute('aria-expanded')) !== 'true') await row.click();
  const description = await expectChange(page, /^(0%→… )?no final evaluation yet$/, 'while the run trains');
  await screenshot(page, 'ui-before-after-live-running.png');
  return [`running, expanded: "test_seen" · ${description}`];
}

/** The running run's dashboard, opened from its row (issue 54 item 9): the base evaluation is the before/after
 * panel's "before" (0 % of 1), the "after" still to come; the run's final metrics have no evaluation row of their own. */
async function liveDashboard(page: Page): Promise<string[]> {
  const row = runRow(page);
  await row.hover();
  await row.locator('.action-label[aria-label="Open Dashboard"]').click();
  const frame = webview(page);
  const pair = frame.locator('.before-after-panel tbody tr').first();
  await pair.waitFor({ state: 'visible', timeout: 30_000 });
  await frame.locator('.comparison-panel th', { hasText: /^last step$/ }).waitFor({ timeout: 15_000 });
  const cells = (await pair.locator('td').allTextContents()).map((text) => text.trim());
  if (cells[0] !== 'test_seen' || cells[1] !== '0% (n=1)' || cells[2] !== '…') fail(`the before/after row: ${cells.join(' | ')}`);
  const heads = (await frame.locator('.comparison-panel tbody th').allTextContents()).map((text) => text.trim());
  if (heads.some((head) => head.startsWith('eval '))) fail(`the running run's final metrics show an evaluation of its own: ${heads.join(' | ')}`);
  const status = (await frame.locator('.status').textContent()) ?? '';
  if (!status.includes('running')) fail(`the dashboard's status line says "${status}"`);
  await screenshot(page, 'ui-dashboard-live-baseline.png');
  await palette(page, 'View: Close All Editors');
  return [`before/after: ${cells.join(' | ')}`, `final metrics rows: ${heads.join(', ')}`];
}

/** The row once the change is read: 0 → 100 % (before → after when the row has room) and the change's interval. */
const CHANGED = /^(0→100% )?\+100 \[[-+]?\d+, \+\d+\]$/;

/** The last update and the final evaluation's trajectories and metrics row land (one burst: the extension reads
 * them in one refresh); once the node shows that evaluation's batch, its report eval/test_seen.json lands: the
 * before/after row shows the change. */
async function finalEvaluation(page: Page, finish: Finish): Promise<string[]> {
  finish.lastUpdateAndEvaluation();
  try {
    await childRows(page).filter({ hasText: 'Eval test_seen' }).first().waitFor({ timeout: 15_000 });
  } catch {
    fail(`the node does not show the final evaluation's batch: ${await drawnRows(page)}`);
  }
  finish.evaluationReport();
  const description = await expectChange(page, CHANGED, 'once eval/test_seen.json is written');
  await screenshot(page, 'ui-before-after-live-evaluated.png');
  return [`final evaluation written, still running: "test_seen" · ${description}`];
}

/** The checkpoint and the completion land while the node stays expanded: the run is drawn completed, with its
 * before/after row; no refresh asked for. */
async function completion(page: Page, finish: Finish): Promise<string[]> {
  finish.completion();
  const row = runRow(page);
  await row.locator('.codicon-pass').first().waitFor({ timeout: 30_000 });
  if ((await row.getAttribute('aria-expanded')) !== 'true') fail("the run's node was collapsed");
  const description = await expectChange(page, CHANGED, 'once the run completed');
  await screenshot(page, 'ui-before-after-live-finished.png');
  return [`completed, still expanded: "test_seen" · ${description}`];
}

function main(): void {
  runnerPrerequisites(LABEL);
  runCodeServerTest(
    { label: LABEL, artifactName: 'ui-before-after-live', timeoutSeconds: 180, session: { label: 'ui-live-before-after', installExtension: true } },
    async (session) => {
      mkdirSync(resultsDir, { recursive: true });
      const finish = prepareRuns(session);
      const page = await session.openBrowser();
      await page.goto(session.workbenchUrl());
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      return runUiSteps(page, LABEL, 'ui-before-after-live', [
        ['a running train run linked to its base evaluation, expanded: "no final evaluation yet"', () => expandRunning(page)],
        ['its dashboard while it trains: the base evaluation is "before", not an evaluation row of its own', () => liveDashboard(page)],
        ['its final evaluation lands: the expanded node shows before → after', () => finalEvaluation(page, finish)],
        ['it completes: the expanded node keeps before → after, the run drawn completed', () => completion(page, finish)],
      ]);
    },
  );
}

main();
