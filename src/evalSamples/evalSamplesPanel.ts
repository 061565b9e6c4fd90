// The evaluation sample table (webview/evalSamples) of one run: an eval run's episodes, or a Stage-2 run's
// evaluations (each split at each evaluated update). A row opens its trajectory in the viewer. Opened from the Runs
// tree (a run or an eval split), the runs table, or the palette (a run picker). Rebuilt when the run changes.
import * as vscode from 'vscode';
import { EVAL_SAMPLES_TO_HOST, type EvalSamplesToHost, type EvalSamplesToWebview } from './shared/protocol';
import { sampleRows } from './core/sampleRows';
import type { SampleRow } from './shared/evalSamples';
import { baselineDirs } from '../runs/core/beforeAfter';
import type { RunEntry } from '../runs/core/runsCore';
import type { Services } from '../services';
import { pickRun } from '../runs/runsModel';
import { PanelBase, createPanel } from '../webviewHost/panelBase';

const EVAL_SAMPLES_VIEW_TYPE = 'seedStudio.evalSamples';

class EvalSamplesPanel extends PanelBase<EvalSamplesToWebview, EvalSamplesToHost> {
  static readonly open = new Map<string, EvalSamplesPanel>();
  private timer: NodeJS.Timeout | undefined;
  private ready = false;

  constructor(
    panel: vscode.WebviewPanel,
    private readonly services: Services,
    private readonly runDir: string,
    private initial: string | undefined,
    extensionUri: vscode.Uri,
  ) {
    super(panel, { title: 'Evaluation samples', bundle: 'evalSamples', fromPage: EVAL_SAMPLES_TO_HOST }, { extensionUri, log: services.log });
    this.channel
      .onReady(() => {
        this.ready = true;
        void this.send();
      })
      .on('open', async ({ trajectory, runDir: other }) => {
        await vscode.commands.executeCommand('seedStudio.openTrajectory', other ?? runDir, trajectory);
      })
      .on('compare', async ({ a, b }) => {
        await vscode.commands.executeCommand('seedStudio.compareTrajectories', { runDir: a.runDir ?? runDir, id: a.trajectory }, { runDir: b.runDir ?? runDir, id: b.trajectory });
      })
      .on('rendered', () => undefined);
    this.own(
      services.runs.onDidChangeRun((event) => {
        if (event.entry.dir !== runDir || !this.ready || this.timer) return;
        this.timer = setTimeout(() => {
          this.timer = undefined;
          void this.send();
        }, 500);
      }),
    );
  }

  reveal(initial: string | undefined): void {
    this.initial = initial;
    this.panel.reveal();
    if (this.ready) void this.send();
  }

  private async send(): Promise<void> {
    try {
      const entry = await this.services.runs.add(this.runDir);
      const rows = [...(await sampleRows(entry)), ...(await this.baselineRows(entry))];
      this.channel.post('samples', { run: this.services.runs.title(this.runDir), rows, ...(this.initial ? { initial: this.initial } : {}) });
      this.initial = undefined;
    } catch (error) {
      this.channel.post('error', { message: error instanceof Error ? error.message : String(error) });
    }
  }

  /** The episodes of the base evaluations run.json links for each split (`baseline_evals`), to compare with. */
  private async baselineRows(entry: RunEntry): Promise<SampleRow[]> {
    const rows: SampleRow[] = [];
    for (const [split, dir] of baselineDirs(entry.dir, entry.index.manifest)) {
      const base = await this.services.runs.add(dir).catch(() => undefined);
      if (!base) continue;
      const source = { runDir: dir, title: this.services.runs.title(dir) };
      for (const row of await sampleRows(base).catch(() => [])) if (row.split === split) rows.push({ ...row, source });
    }
    return rows;
  }

  override dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (EvalSamplesPanel.open.get(this.runDir) === this) EvalSamplesPanel.open.delete(this.runDir);
    super.dispose();
  }
}

/** `{dir}` of a run, `{dir, batch: 'eval:<split>'}` of an eval split (Runs tree), or a run directory. */
function targetOf(arg: unknown): { dir: string; initial?: string } | undefined {
  if (typeof arg === 'string') return { dir: arg };
  if (arg instanceof vscode.Uri) return { dir: arg.fsPath };
  if (!arg || typeof arg !== 'object') return undefined;
  const node = arg as { dir?: unknown; batch?: unknown; split?: unknown };
  if (typeof node.dir !== 'string') return undefined;
  const split = typeof node.split === 'string' ? node.split : typeof node.batch === 'string' && node.batch.startsWith('eval:') ? node.batch.slice(5) : undefined;
  return split ? { dir: node.dir, initial: split } : { dir: node.dir };
}

export function registerEvalSamples(context: vscode.ExtensionContext, services: Services): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.commands.registerCommand('seedStudio.openEvalSamples', async (arg?: unknown) => {
      let target = targetOf(arg);
      if (!target) {
        await services.runs.ready;
        const dir = await pickRun(services.runs, {
          title: 'evaluation samples of which run?',
          filter: (e) => [...e.index.batches.values()].some((b) => b.phase === 'eval') || e.index.metrics.some((m) => m.kind === 'eval'),
          empty: 'no run of this workspace has an evaluation yet.',
        });
        if (!dir) return undefined;
        target = { dir };
      }
      const existing = EvalSamplesPanel.open.get(target.dir);
      // A split alone selects its latest evaluation on the page.
      const initial = target.initial;
      if (existing) {
        existing.reveal(initial);
        return existing.panel;
      }
      const panel = createPanel(EVAL_SAMPLES_VIEW_TYPE, `Samples · ${services.runs.title(target.dir)}`, vscode.ViewColumn.Active, context.extensionUri);
      EvalSamplesPanel.open.set(target.dir, new EvalSamplesPanel(panel, services, target.dir, initial, context.extensionUri));
      return panel;
    }),
    { dispose: () => [...EvalSamplesPanel.open.values()].forEach((p) => p.dispose()) },
  );
}
