// The "Runs" view of the SEED activity-bar container: runs (status icon, stage, algorithm, progress) → batches
// (Stage-2 updates, Stage-1 collection batches, eval splits) → task groups → trajectories (success icon, length).
// Everything is drawn from the in-memory RunIndex of the runs model; a change refreshes only the run it concerns,
// at most four times a second.
import path from 'node:path';
import * as vscode from 'vscode';
import type { CoreServices } from '../services';
import type { TaskGroup, TrajectoryBatch } from '../runs/core/runIndex';
import type { TrajectoryIndexRow } from '../runs/shared/types';
import { displayText, isolatedText } from '../common/shared/inertText';
import { groupComparePair } from './core/groupCompare';
import { isLive, type RunEntry, type RunState, type RunsModel } from '../runs/runsModel';
import type { BeforeAfter } from '../runs/core/beforeAfter';
import { factsOf } from '../runs/core/runsCore';
import { runResult, runTitleParts } from '../runs/core/runLabel';
import { runRow, type RunRowFacts } from './core/runRow';
import { changeRow } from './core/changeRow';

export type RunsNode =
  | { kind: 'run'; dir: string; runDir: string }
  | { kind: 'batch'; dir: string; runDir: string; batch: string }
  | { kind: 'group'; dir: string; runDir: string; batch: string; group: string }
  | { kind: 'trajectory'; dir: string; runDir: string; batch: string; group: string; id: string }
  | { kind: 'problem'; dir: string; runDir: string; message: string }
  | { kind: 'change'; dir: string; runDir: string; split: string };

const REFRESH_INTERVAL_MS = 250;

const STATE_ICONS: Record<RunState, [string, string | undefined]> = {
  running: ['sync~spin', 'charts.blue'],
  stopping: ['debug-pause', 'charts.yellow'],
  completed: ['pass', 'testing.iconPassed'],
  stopped: ['debug-stop', undefined],
  failed: ['error', 'testing.iconFailed'],
  interrupted: ['warning', 'list.warningForeground'],
  broken: ['error', 'list.errorForeground'],
  loading: ['loading~spin', undefined],
};

function icon(name: string, colour?: string): vscode.ThemeIcon {
  return new vscode.ThemeIcon(name, colour ? new vscode.ThemeColor(colour) : undefined);
}

function percent(successes: number, total: number): string {
  return total > 0 ? `${successes}/${total} ✓` : '';
}

export class RunsTreeProvider implements vscode.TreeDataProvider<RunsNode>, vscode.Disposable {
  /** The provider of the Runs view (for the integration tests). */
  static current: RunsTreeProvider | undefined;
  private readonly changed = new vscode.EventEmitter<RunsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly nodes = new Map<string, RunsNode>();
  private readonly pending = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly runs: RunsModel) {
    this.disposables = [
      this.changed,
      runs.onDidChangeRuns(() => this.queue(undefined)),
      runs.onDidChangeRun((event) => this.refreshRun(event.entry)),
    ];
  }

  /**
   * A run changed. When the change gives a run whose children were drawn a new before/after (its status, its metrics
   * or an evaluation report it reads), the run is redrawn once that is read: one redraw that shows it, rather than
   * one with the old rows and a second when the read arrives.
   */
  private refreshRun(entry: RunEntry): void {
    if (!this.beforeAfters.has(entry.dir)) {
      this.queue(entry.dir);
      return;
    }
    const slot = this.beforeAfterSlot(entry);
    if (slot.settled) this.queue(entry.dir);
    else {
      const redraw = (): void => this.queue(entry.dir);
      void slot.source.then(redraw, redraw);
    }
  }

  /** Coalesces refreshes: every run changed in the last 250 ms is refreshed once. */
  private queue(dir: string | undefined): void {
    this.pending.add(dir ?? '');
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const all = this.pending.has('');
      const dirs = [...this.pending];
      this.pending.clear();
      if (all) this.changed.fire(undefined);
      else for (const d of dirs) this.changed.fire(this.node({ kind: 'run', dir: d, runDir: d }));
    }, REFRESH_INTERVAL_MS);
  }

  /** One object per tree position (VS Code identifies elements by reference). */
  private node<T extends RunsNode>(value: T): T {
    const key = nodeId(value);
    const known = this.nodes.get(key);
    if (known) return known as T;
    this.nodes.set(key, value);
    return value;
  }

  getParent(element: RunsNode): RunsNode | undefined {
    const { dir } = element;
    switch (element.kind) {
      case 'run':
        return undefined;
      case 'batch':
      case 'problem':
      case 'change':
        return this.node({ kind: 'run', dir, runDir: dir });
      case 'group':
        return this.node({ kind: 'batch', dir, runDir: dir, batch: element.batch });
      case 'trajectory':
        return this.node({ kind: 'group', dir, runDir: dir, batch: element.batch, group: element.group });
    }
  }

  /** The before/after last read per change node (the tree items draw from it). */
  private readonly changes = new Map<string, BeforeAfter>();
  /** The before/after read per run whose children were drawn (a newer read replaces it). */
  private readonly beforeAfters = new Map<string, BeforeAfterSlot>();

  /** The run's before/after as the runs layer has it now: a new read when the run changed since the last. */
  private beforeAfterSlot(entry: RunEntry): BeforeAfterSlot {
    const source = this.runs.core.beforeAfter(entry);
    const known = this.beforeAfters.get(entry.dir);
    if (known?.source === source) return known;
    const slot = { source, value: known?.value, settled: false, drawnBefore: false };
    this.beforeAfters.set(entry.dir, slot);
    const settle = (value: BeforeAfter[] | undefined): void => {
      if (this.beforeAfters.get(entry.dir) !== slot) return;
      slot.settled = true;
      if (value) slot.value = value;
      // Drawn meanwhile (a run expanded for the first time, a redraw of the whole tree): draw it again.
      if (value && slot.drawnBefore) this.changed.fire(this.node({ kind: 'run', dir: entry.dir, runDir: entry.dir }));
    };
    void source.then(settle, () => settle(undefined));
    return slot;
  }

  /** A run's before/after nodes: the last read (a read under way redraws the run when it arrives). */
  private beforeAfterNodes(entry: RunEntry): RunsNode[] {
    const slot = this.beforeAfterSlot(entry);
    if (!slot.settled) slot.drawnBefore = true;
    const value = slot.value ?? [];
    return value.map((change) => {
      const node = this.node({ kind: 'change', dir: entry.dir, runDir: entry.dir, split: change.split });
      this.changes.set(nodeId(node), change);
      return node;
    });
  }

  getChildren(element?: RunsNode): RunsNode[] {
    if (!element) return this.runs.runs().map((entry) => this.node({ kind: 'run', dir: entry.dir, runDir: entry.dir }));
    const entry = this.runs.get(element.dir);
    if (!entry) return [];
    const { dir } = element;
    switch (element.kind) {
      case 'run': {
        const problems = (entry.index.manifestError ? [entry.index.manifestError.message] : entry.index.problems.slice(-3)).map((message) =>
          this.node({ kind: 'problem', dir, runDir: dir, message }),
        );
        // Newest batch first: while a run is live, the latest update is what one looks at.
        const batches = [...entry.index.batches.keys()].reverse().map((batch) => this.node({ kind: 'batch', dir, runDir: dir, batch }));
        // Before/after first: a train run linked to its base evaluations shows the change in success per split.
        const changes = this.beforeAfterNodes(entry);
        return [...problems, ...changes, ...batches];
      }
      case 'batch': {
        const batch = entry.index.batches.get(element.batch);
        return batch ? [...batch.groups.keys()].map((group) => this.node({ kind: 'group', dir, runDir: dir, batch: element.batch, group })) : [];
      }
      case 'group': {
        const group = entry.index.batches.get(element.batch)?.groups.get(element.group);
        return group
          ? group.rows.map((row) => this.node({ kind: 'trajectory', dir, runDir: dir, batch: element.batch, group: element.group, id: row.id }))
          : [];
      }
      default:
        return [];
    }
  }

  getTreeItem(element: RunsNode): vscode.TreeItem {
    const entry = this.runs.get(element.dir);
    switch (element.kind) {
      case 'run':
        return entry
          ? runItem(entry, { ...runTitleParts(factsOf(entry)), extras: this.runs.core.titleExtras(entry.dir), result: runResult(factsOf(entry)) })
          : new vscode.TreeItem(isolatedText(path.basename(element.dir)));
      case 'change': {
        const change = this.changes.get(nodeId(element));
        return change ? changeItem(change, element) : new vscode.TreeItem(element.split);
      }
      case 'problem': {
        const item = new vscode.TreeItem(displayText(element.message), vscode.TreeItemCollapsibleState.None);
        item.iconPath = icon('warning', 'list.warningForeground');
        item.tooltip = displayText(element.message);
        return item;
      }
      case 'batch': {
        const batch = entry?.index.batches.get(element.batch);
        return batch ? batchItem(batch, element) : new vscode.TreeItem(element.batch);
      }
      case 'group': {
        const group = entry?.index.batches.get(element.batch)?.groups.get(element.group);
        return group ? groupItem(group, element) : new vscode.TreeItem(element.group);
      }
      case 'trajectory': {
        const row = entry?.index.batches.get(element.batch)?.groups.get(element.group)?.rows.find((r) => r.id === element.id);
        return row ? trajectoryItem(row, element) : new vscode.TreeItem(element.id);
      }
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const disposable of this.disposables) disposable.dispose();
  }
}

/** A run's before/after in the tree: the read it comes from, the value last read (kept while a newer read is under
 * way), whether that read has settled, and whether the run's children were drawn while it had not. */
interface BeforeAfterSlot {
  source: Promise<BeforeAfter[]>;
  value: BeforeAfter[] | undefined;
  settled: boolean;
  drawnBefore: boolean;
}

function nodeId(node: RunsNode): string {
  switch (node.kind) {
    case 'run':
      return node.dir;
    case 'batch':
      return `${node.dir}#${node.batch}`;
    case 'group':
      return `${node.dir}#${node.group}`;
    case 'trajectory':
      return `${node.dir}#${node.id}`;
    case 'problem':
      return `${node.dir}#problem:${node.message}`;
    case 'change':
      return `${node.dir}#change:${node.split}`;
  }
}

/** `valid_seen` · `48→52% +4 [-6, +14]`: one split's before/after under its run (changeRow.ts; the verdict is its
 * icon, every word in its tooltip). */
function changeItem(change: BeforeAfter, node: Extract<RunsNode, { kind: 'change' }>): vscode.TreeItem {
  const texts = changeRow(change);
  const item = new vscode.TreeItem(isolatedText(texts.label), vscode.TreeItemCollapsibleState.None);
  item.id = nodeId(node);
  const verdict = change.change?.verdict;
  item.iconPath = verdict === 'better' ? icon('arrow-up', 'testing.iconPassed') : verdict === 'worse' ? icon('arrow-down', 'testing.iconFailed') : icon('arrow-both');
  item.description = texts.description;
  item.tooltip = displayText(texts.tooltip);
  item.contextValue = 'seedBeforeAfter';
  return item;
}

function runItem(entry: RunEntry, facts: Pick<RunRowFacts, 'name' | 'what' | 'extras' | 'result'>): vscode.TreeItem {
  const manifest = entry.index.manifest;
  const row = runRow({
    ...facts,
    state: entry.state,
    manifest,
    dir: entry.dir,
    lastEvent: entry.index.lastEvent?.message,
    manifestError: entry.index.manifestError?.message,
  });
  const item = new vscode.TreeItem(
    isolatedText(row.label),
    entry.index.batches.size > 0 || entry.index.problems.length > 0 || entry.index.manifestError || manifest?.baseline_evals
      ? vscode.TreeItemCollapsibleState.Collapsed
      : vscode.TreeItemCollapsibleState.None,
  );
  item.id = entry.dir;
  const [iconName, colour] = STATE_ICONS[entry.state];
  item.iconPath = icon(iconName, colour);
  item.description = displayText(row.description);
  // A plain-text tooltip: run files are untrusted, and Markdown would turn a URL in an error or event message into a
  // link that opens without asking. Bidi controls are shown, not obeyed.
  item.tooltip = row.tooltip.map(displayText).join('\n');
  const flags = ['seedRun'];
  if (isLive(entry.state)) flags.push('live');
  if (entry.state === 'stopped' || entry.state === 'failed' || entry.state === 'interrupted') flags.push('resumable');
  item.contextValue = flags.join(' ');
  return item;
}

function batchItem(batch: TrajectoryBatch, node: RunsNode): vscode.TreeItem {
  const item = new vscode.TreeItem(batch.label, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = nodeId(node);
  item.iconPath = icon(batch.phase === 'eval' ? 'beaker' : batch.phase === 'collect' ? 'inbox' : 'layers');
  item.description = `${batch.groups.size} group${batch.groups.size === 1 ? '' : 's'} · ${percent(batch.successes, batch.trajectories)}`;
  item.contextValue = 'seedBatch';
  return item;
}

function groupItem(group: TaskGroup, node: RunsNode): vscode.TreeItem {
  const item = new vscode.TreeItem(isolatedText(group.task.type), vscode.TreeItemCollapsibleState.Collapsed);
  item.id = nodeId(node);
  item.iconPath = icon('symbol-namespace');
  item.description = `${group.group !== undefined ? `group ${group.group} · ` : ''}${isolatedText(group.task.id)} · ${percent(group.successes, group.rows.length)}`;
  item.tooltip = displayText(group.task.description ? `${group.task.id}\n${group.task.description}` : group.task.id);
  const mixed = group.successes > 0 && group.successes < group.rows.length;
  item.contextValue = mixed ? 'seedGroup mixed' : 'seedGroup';
  return item;
}

function trajectoryItem(row: TrajectoryIndexRow, node: RunsNode): vscode.TreeItem {
  const label = `${row.sample !== undefined ? `#${row.sample} ` : ''}${row.success ? 'success' : 'failure'}`;
  const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
  item.id = nodeId(node);
  item.iconPath = row.success ? icon('pass', 'testing.iconPassed') : icon('error', 'testing.iconFailed');
  const skill = row.skill ? ` · skill ${row.skill.valid ? 'valid' : 'invalid'}` : '';
  item.description = `${row.length} step${row.length === 1 ? '' : 's'} · ${row.tokens} tokens${row.teacher ? ' · gates' : ''}${skill}`;
  item.tooltip = displayText(`${row.id}\n${row.task.id} (${row.task.type}) · reward ${row.reward}`);
  item.contextValue = 'seedTrajectory';
  item.command = { title: 'Open Trajectory', command: 'seedStudio.openTrajectory', arguments: [node] };
  return item;
}

/** "Compare" from the tree: the two selected trajectories, or a failure and a success (with gates) of a task group. */
function comparePair(services: CoreServices, clicked: RunsNode | undefined, selected: readonly RunsNode[] | undefined): [RunsNode, RunsNode] | { refusal: string } | undefined {
  const picks = (selected && selected.length > 0 ? selected : clicked ? [clicked] : []).filter((n) => n.kind === 'trajectory');
  if (picks.length === 2 && picks[0] && picks[1]) return [picks[0], picks[1]];
  if (clicked?.kind === 'group') {
    const group = services.runs.get(clicked.dir)?.index.batches.get(clicked.batch)?.groups.get(clicked.group);
    if (!group) return undefined;
    const chosen = groupComparePair(group.rows);
    if ('refusal' in chosen) return chosen;
    const make = (id: string): RunsNode => ({ kind: 'trajectory', dir: clicked.dir, runDir: clicked.dir, batch: clicked.batch, group: clicked.group, id });
    return [make(chosen.pair[0].id), make(chosen.pair[1].id)];
  }
  return undefined;
}

export function registerRunsTree(_context: vscode.ExtensionContext, services: CoreServices): vscode.Disposable {
  const provider = new RunsTreeProvider(services.runs);
  RunsTreeProvider.current = provider;
  const view = vscode.window.createTreeView('seedStudio.runs', { treeDataProvider: provider, canSelectMany: true, showCollapseAll: true });
  const describe = (): void => {
    const live = services.runs.runs().filter((entry) => isLive(entry.state)).length;
    view.badge = live > 0 ? { value: live, tooltip: `${live} run${live === 1 ? '' : 's'} training` } : undefined;
  };
  return vscode.Disposable.from(
    provider,
    view,
    services.runs.onDidChangeRun((event) => {
      if (event.stateChanged) describe();
    }),
    services.runs.onDidChangeRuns(describe),
    vscode.commands.registerCommand('seedStudio.runs.compare', async (clicked?: RunsNode, selected?: RunsNode[]) => {
      const pair = comparePair(services, clicked, selected);
      if (pair && 'refusal' in pair) {
        void vscode.window.showWarningMessage(`SEED: cannot compare this task group: ${pair.refusal}.`);
        return undefined;
      }
      if (pair) return vscode.commands.executeCommand('seedStudio.compareTrajectories', pair[0], pair[1]);
      return vscode.commands.executeCommand('seedStudio.compareTrajectories', clicked);
    }),
  );
}
