// Webview tests of the premise report (webview/premise): the fixture report draws its header, the verdict of every
// contrast as src/premise/shared/premiseView.ts words it, the n/a sources with their reasons and the tables; a skill or
// task text that is markup shows as text and runs nothing; a located error (file, line, field, message) is drawn as
// text with a button to open the file there. Screenshots: test-results/webview-premise-report.png and
// webview-premise-error.png.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { contrastVerdict, expertTable, gateTable, settingsLine } from '../../src/premise/shared/premiseView';
import type { ExpertSection, PremiseReport } from '../../src/runs/shared/generated/premise';
import { repoRoot, type WebviewPage } from './harness';
import { HOSTILE_SHORT } from './hostile';
import type { TestCase } from './run';

const IMG_SKILL = '<img src=x onerror=alert(1)>';

function fixture(): PremiseReport {
  return JSON.parse(readFileSync(path.join(repoRoot, 'test', 'fixtures', 'premise', 'report.json'), 'utf8')) as PremiseReport;
}

/** What the page shows of its text, with the isolates displayText may add taken out. */
async function texts(view: WebviewPage, selector: string): Promise<string[]> {
  return (await view.page.locator(selector).allTextContents()).map((t) => t.replace(/[\u2068\u2069]/g, ''));
}

/** Nothing from the data became an element, an attribute or a script. */
async function assertNothingRan(view: WebviewPage): Promise<void> {
  const found = await view.page.evaluate(() => ({
    pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null,
    alerts: (window as unknown as { __alerts: number }).__alerts,
    foreign: [...document.querySelectorAll('img, svg, iframe, a, style, object, embed, form, b')].map((e) => e.tagName),
    handlers: [...document.querySelectorAll('*')].flatMap((e) => [...e.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `${e.tagName} ${a.name}`)),
    scripts: document.querySelectorAll('script').length,
  }));
  assert.deepEqual(found, { pwned: null, alerts: 0, foreign: [], handlers: [], scripts: 1 });
  assert.deepEqual(await view.violations(), [], 'CSP violations');
  assert.deepEqual(view.errors, [], 'page errors');
}

export const premiseTests: TestCase[] = [
  [
    'premise report: header, a verdict per contrast, n/a reasons, the tables; a skill that is markup shows as text',
    async (context) => {
      const report = fixture();
      const expert = report.expert_vs_mistake as ExpertSection;
      // Task text that is markup too (the examples' task comes from the environment, the skills from the model).
      expert.examples[0]!.task = `clean some plate ${HOSTILE_SHORT}`;
      const view = await context.open('premise', { width: 1300, height: 1400 });
      await view.send('report', { file: '/reports/premise-report.json', report });
      assert.deepEqual(await view.waitFor('rendered'), { what: 'report' });

      assert.equal((await texts(view, '[data-k="model"]'))[0], 'builtin:household-tiny');
      assert.equal((await texts(view, '[data-k="settings"]'))[0], settingsLine(report.settings));
      assert.match((await texts(view, '[data-k="timing"]'))[0]!, /^35\.1 s in all; forward passes 27\.9 s over 153,980 tokens/);
      assert.match((await texts(view, '[data-k="covers"]'))[0]!, /^What the times cover: seconds: the whole command/);

      // The expert section's verdicts, as the shared module words them, and as a reader should read them.
      const verdicts = await texts(view, '[data-section="expert"] li.verdict');
      assert.deepEqual(verdicts, expert.contrasts.map((c) => contrastVerdict(c, 'expert').text));
      assert.deepEqual(verdicts, [
        "The oracle analyzer's skills are not distinguishable from another task's skill: +3.0 points [\u22124.5, +11.8] over 8 tasks",
        "The model's own skills move it toward the expert action more than another task's skill: +10.5 points [+1.7, +20.8] over 7 tasks",
      ]);
      assert.deepEqual(await view.page.$$eval('[data-section="expert"] li.verdict', (items) => items.map((i) => i.getAttribute('data-side'))), ['holds', 'above']);

      // The source table: the shared rows, cell by cell.
      const expected = expertTable(expert, report.settings.level);
      const rows = await view.page.$$eval('table[data-table="expert"] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => (c.textContent ?? '').replace(/[\u2068\u2069]/g, ''))));
      assert.deepEqual(rows, expected.rows.map((r) => [r.label, ...r.cells]));
      assert.equal(await view.page.locator('table[data-table="kinds"] tbody tr').count(), 5);

      // The runs: the first has a verdict and an n/a source, the second only n/a sources.
      assert.deepEqual(await texts(view, '[data-section="runs"] h3'), ['base-eval-valid_seen', 'stage2-household-seed']);
      const runVerdicts = await texts(view, '[data-section="runs"] li.verdict');
      assert.deepEqual(runVerdicts, [
        "The model's own skills are not distinguishable from another task's skill at separating steps of successful and failed episodes: \u22121.3 AUC points [\u22129.8, +4.9] over 16 tasks",
        'recorded: n/a — no task with a skill',
        'own: n/a — 0 steps of successful and 54 of failed episodes',
        'placebo of own: n/a — 0 steps of successful and 54 of failed episodes',
      ]);
      assert.deepEqual(await texts(view, 'table[data-table="run"] tr[data-key="recorded"] td.na-reason'), ['n/a: no task with a skill']);

      // The gate band: source × kind.
      const gate = gateTable(report.gate_band);
      const gateRows = await view.page.$$eval('table[data-table="gate"] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent ?? '')));
      assert.deepEqual(gateRows, gate.rows.map((r) => [r.label, ...r.cells]));

      // The examples: a skill that is an <img> tag is its own text; nothing was made of it or of the task.
      const own = view.page.locator('table[data-table="examples"] tbody tr').nth(1).locator('td').nth(2);
      assert.equal(await own.textContent(), IMG_SKILL);
      assert.equal(await own.evaluate((td) => td.childElementCount), 0);
      const task = (await texts(view, 'table[data-table="examples"] tbody tr:first-child th'))[0]!;
      assert.ok(task.startsWith('clean some plate <script>window.__pwned = 1; alert(1)</script>'), task.slice(0, 80));
      await assertNothingRan(view);
      await view.page.locator('[data-section="expert"]').scrollIntoViewIfNeeded();
      await context.screenshot(view, 'premise-report');
    },
  ],
  [
    'premise report: a section that is n/a says why; an invalid file is a located error, shown as text, that opens the file',
    async (context) => {
      const report = fixture();
      report.expert_vs_mistake = { status: 'n/a', reason: '--household-tasks 0' };
      report.runs = [];
      const view = await context.open('premise', { width: 1000, height: 700 });
      await view.send('report', { file: '/reports/premise-report.json', report });
      await view.waitFor('rendered');
      assert.deepEqual(await texts(view, '[data-section="expert"] p.na-reason'), ['n/a: --household-tasks 0']);
      assert.deepEqual(await texts(view, '[data-section="runs"] p'), ['No run was scored (the command was given no --run).']);

      const field = `expert_vs_mistake.sources["${IMG_SKILL}"].win_rate`;
      await view.send('error', { file: '/reports/premise-invalid.json', kind: 'schema', line: 7, field, message: 'must be <= 1' });
      await view.waitFor('rendered', 2);
      assert.deepEqual(await texts(view, '[role="alert"] dd'), ['/reports/premise-invalid.json:7', field, 'must be <= 1']);
      assert.match((await texts(view, '[role="alert"] strong'))[0]!, /cannot be shown as a premise report/);
      await assertNothingRan(view);
      await context.screenshot(view, 'premise-error');
      await view.page.locator('vscode-button[data-action="open-at"]').click();
      assert.deepEqual(await view.waitFor('openSource'), { line: 7 });
      await view.page.locator('vscode-button[data-action="reload"]').click();
      assert.deepEqual(await view.waitFor('reload'), {});
    },
  ],
];
