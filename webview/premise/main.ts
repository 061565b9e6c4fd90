// The premise report (src/premise/premisePanel.ts): does a hindsight skill in the prompt raise the log-probability of
// the correct action and lower that of mistakes? A header (model, settings, timing), the verdict of every contrast in
// words, the tables of the expert/mistake section, of each scored run and of the gate band, and the example skills.
// The words and numbers come from src/premise/shared/premiseView.ts; every string of the report (skills, tasks, run
// names, reasons) goes in as text.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import { PREMISE_TO_WEBVIEW, type PremiseProblem, type PremiseToHost, type PremiseToWebview } from '../../src/premise/shared/protocol';
import {
  attemptSummary,
  contrastVerdict,
  examplesTable,
  expertSummary,
  expertTable,
  gateBandLine,
  gateTable,
  kindTable,
  missingVerdicts,
  runSummary,
  runTable,
  settingsLine,
  timingLine,
  type Table,
  type VerdictLine,
} from '../../src/premise/shared/premiseView';
import type { PremiseReport } from '../../src/runs/shared/generated/premise';
import { clear, el } from '../shared/dom';
import { HostChannel } from '../shared/hostApi';

const channel = new HostChannel<PremiseToWebview, PremiseToHost>(PREMISE_TO_WEBVIEW);
const root = document.getElementById('root') ?? document.body.appendChild(document.createElement('div'));

function button(action: string, label: string, onClick: () => void): HTMLElement {
  const node = el('vscode-button', { attrs: { 'data-action': action, secondary: '' } }, label);
  node.addEventListener('click', onClick);
  return node;
}

const title = el('h1', { text: 'Premise report' });
const content = el('main');
root.append(el('header', { class: 'toolbar' }, title, button('reload', 'Reload', () => channel.post('reload', {})), button('open-source', 'Open JSON', () => channel.post('openSource', {}))), content);

function drawTable(table: Table, name: string): HTMLElement {
  const head = el('tr', {}, ...table.headers.map((header) => el('th', { text: header })));
  const body = el('tbody');
  for (const row of table.rows) {
    const label = el('th', { text: row.label, attrs: { scope: 'row' }, ...(row.title ? { title: row.title } : {}) });
    const tr = el('tr', { attrs: { 'data-key': row.key } }, label);
    if (row.na !== undefined) {
      tr.classList.add('na');
      for (const cell of row.cells) tr.append(el('td', { text: cell }));
      tr.append(el('td', { class: 'na-reason', text: `n/a: ${row.na}`, attrs: { colspan: String(table.headers.length - 1 - row.cells.length) } }));
    } else {
      for (const cell of row.cells) tr.append(el('td', { text: cell }));
    }
    body.append(tr);
  }
  return el('div', { class: 'table-scroll' }, el('table', { class: `report-table ${name}`, attrs: { 'data-table': name } }, el('thead', {}, head), body));
}

function verdictList(lines: readonly VerdictLine[], notes: readonly string[]): HTMLElement {
  return el(
    'ul',
    { class: 'verdicts' },
    ...lines.map((line) => el('li', { class: `verdict ${line.side}`, attrs: { 'data-side': line.side }, text: line.text })),
    ...notes.map((note) => el('li', { class: 'verdict note', attrs: { 'data-side': 'none' }, text: note })),
  );
}

function expertPart(report: PremiseReport): HTMLElement {
  const section = report.expert_vs_mistake;
  const part = el('section', { attrs: { 'data-section': 'expert' } }, el('h2', { text: 'The expert action against mistakes' }));
  if (section.status === 'n/a') {
    part.append(el('p', { class: 'na-reason', text: `n/a: ${section.reason}` }));
    return part;
  }
  part.append(
    el('p', { class: 'muted', text: `${expertSummary(section)}. P(Δ(a*) > Δ(m)): how often the skill raises the expert action's log-probability more than a mistake's (ties ½); a placebo is the same-outcome skill of another task.` }),
    verdictList(
      section.contrasts.map((c) => contrastVerdict(c, 'expert')),
      missingVerdicts(section.sources, section.contrasts),
    ),
    drawTable(expertTable(section, report.settings.level), 'expert'),
    el('p', { class: 'muted', text: `${attemptSummary(section)}.` }),
    el('h3', { text: 'By mistake kind' }),
    drawTable(kindTable(section, report.settings.level), 'kinds'),
  );
  if (section.examples.length > 0) part.append(el('h3', { text: 'Example skills' }), drawTable(examplesTable(section), 'examples'));
  return part;
}

function runsPart(report: PremiseReport): HTMLElement {
  const part = el('section', { attrs: { 'data-section': 'runs' } }, el('h2', { text: 'Scored runs: successful against failed episodes' }));
  if (report.runs.length === 0) {
    part.append(el('p', { class: 'muted', text: 'No run was scored (the command was given no --run).' }));
    return part;
  }
  part.append(el('p', { class: 'muted', text: "AUC: how often a step of a successful episode has a larger Δ than a step of a failed one (ties ½)." }));
  for (const run of report.runs) {
    part.append(
      el('h3', { text: run.run, attrs: { 'data-run': run.run } }),
      el('p', { class: 'muted', text: runSummary(run) }),
      verdictList(
        run.contrasts.map((c) => contrastVerdict(c, 'runs')),
        missingVerdicts(run.sources, run.contrasts),
      ),
      drawTable(runTable(run, report.settings.level), 'run'),
    );
  }
  return part;
}

function gatePart(report: PremiseReport): HTMLElement {
  const gate = report.gate_band;
  const part = el('section', { attrs: { 'data-section': 'gate' } }, el('h2', { text: 'Where the gate leaves the neutral band' }), el('p', { class: 'muted', text: gateBandLine(gate) }));
  part.append(Object.keys(gate.sources).length ? drawTable(gateTable(gate), 'gate') : el('p', { class: 'muted', text: 'No token was scored.' }));
  return part;
}

function showReport(file: string, report: PremiseReport): void {
  title.textContent = 'Premise report';
  title.append(el('span', { class: 'file', text: ` · ${file}` }));
  clear(content);
  content.append(
    el(
      'section',
      { class: 'summary', attrs: { 'data-section': 'header' } },
      el('p', {}, el('strong', { text: 'Model ' }), el('span', { attrs: { 'data-k': 'model' }, text: report.model })),
      el('p', { attrs: { 'data-k': 'settings' }, text: settingsLine(report.settings) }),
      el('p', { attrs: { 'data-k': 'timing' }, text: timingLine(report.timing) }),
      el('p', { class: 'muted', attrs: { 'data-k': 'covers' }, text: `What the times cover: ${report.timing.covers}` }),
    ),
    expertPart(report),
    runsPart(report),
    gatePart(report),
  );
  channel.post('rendered', { what: 'report' });
}

function showProblem(problem: PremiseProblem): void {
  title.textContent = 'Premise report';
  clear(content);
  const open = button('open-at', problem.line ? `Open the file at line ${problem.line}` : 'Open the file', () => channel.post('openSource', problem.line ? { line: problem.line } : {}));
  content.append(
    el(
      'div',
      { class: 'error', attrs: { role: 'alert' } },
      el('strong', { text: problem.kind === 'missing_file' ? 'No such file' : 'This file cannot be shown as a premise report' }),
      el(
        'dl',
        {},
        el('dt', { text: 'File' }),
        el('dd', { attrs: { 'data-k': 'file' }, text: problem.line ? `${problem.file}:${problem.line}` : problem.file }),
        ...(problem.field ? [el('dt', { text: 'Field' }), el('dd', { attrs: { 'data-k': 'field' }, text: problem.field })] : []),
        el('dt', { text: 'Problem' }),
        el('dd', { attrs: { 'data-k': 'message' }, text: problem.message }),
      ),
      el('p', { class: 'muted', text: 'The file is left as it is. Fix it or write it again, then Reload (a change on disk reloads by itself).' }),
      problem.kind === 'missing_file' ? null : open,
    ),
  );
  channel.post('rendered', { what: 'error' });
}

channel.on('report', ({ file, report }) => showReport(file, report)).on('error', (problem) => showProblem(problem));
channel.ready();
