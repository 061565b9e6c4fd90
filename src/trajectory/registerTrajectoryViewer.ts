// Commands of the trajectory viewer and diff, the text documents, and restoring their panels after a reload.
//
//   seedStudio.openTrajectory(runDir?, id?) | ({runDir, id})            → the viewer panel
//   seedStudio.compareTrajectories(a?, b?)   a, b: {runDir, id}          → the diff panel
//   seedStudio.openTrajectoryTextDiff(a?, b?)                            → VS Code's diff editor on text renderings
//   seedStudio.openTrajectoryAsText(runDir?, id?) | ({runDir, id})      → the text rendering
//   seedStudio.whatIfTrajectory(runDir, id, skill)                       → the viewer with "What if…" open on `skill`
// Missing arguments are asked for with quick picks (palette use). runDir may be a path or a Uri.
import * as vscode from 'vscode';
import { TrajectoryDiffPanel, DIFF_VIEW_TYPE, type DiffHooks } from '../diff/diffPanel';
import { type RunAccess, completeRef, pickRun, pickTrajectory, refFromArgs, toTrajectoryRef, type TrajectoryRef } from '../runs/runAccess';
import { TRAJECTORY_VIEW_TYPE, TrajectoryPanel } from './trajectoryPanel';
import { openTextDiff, registerTrajectoryDocuments, trajectoryTextUri } from './trajectoryDocuments';
import type { WalkthroughViewKey } from '../walkthrough/core/walkthroughContext';
import { providePanelSerializer } from '../lazyFeatures/featureStandIns';

/** Ticks the walkthrough step of a view once it opened (see walkthroughContext.ts). */
function viewOpened(key: WalkthroughViewKey): void {
  void vscode.commands.executeCommand('setContext', key, true);
}

const TRAJECTORY_COMMANDS = {
  open: 'seedStudio.openTrajectory',
  compare: 'seedStudio.compareTrajectories',
  textDiff: 'seedStudio.openTrajectoryTextDiff',
  whatIf: 'seedStudio.whatIfTrajectory',
  asText: 'seedStudio.openTrajectoryAsText',
} as const;

export function registerTrajectoryViewer(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, access: RunAccess): vscode.Disposable {
  const extensionUri = context.extensionUri;

  const openViewer = (ref: TrajectoryRef, existing?: vscode.WebviewPanel): TrajectoryPanel =>
    TrajectoryPanel.show(ref, access, { compare: (a) => compare([a]) }, log, extensionUri, existing);

  const diffHooks: DiffHooks = { openViewer: (ref) => openViewer(ref), openTextDiff };

  /** The second trajectory of a comparison: same task first, in the first one's run unless another is chosen. */
  async function pickSecond(first: TrajectoryRef, title: string): Promise<TrajectoryRef | undefined> {
    let taskId: string | undefined;
    try {
      taskId = (await access.load(first)).trajectory.task.id;
    } catch (error) {
      void vscode.window.showErrorMessage(`SEED: ${(error as Error).message}`);
      return undefined;
    }
    const runDir = await pickRun(access, `${title}: run of the second trajectory`, first.runDir);
    if (!runDir) return undefined;
    const id = await pickTrajectory(access, runDir, `${title}: compare ${first.id} with…`, { taskId, exclude: runDir === first.runDir ? first.id : undefined });
    return id ? { runDir, id } : undefined;
  }

  async function pair(args: readonly unknown[], title: string): Promise<[TrajectoryRef, TrajectoryRef] | undefined> {
    // A tree node of a run or a task group (runDir without id) starts the picks in that run.
    const a = toTrajectoryRef(args[0]) ?? (await completeRef(access, { runDir: refFromArgs(args.slice(0, 1)).runDir }, `${title}: first trajectory`));
    if (!a) return undefined;
    const b = toTrajectoryRef(args[1]) ?? (await pickSecond(a, title));
    return b ? [a, b] : undefined;
  }

  async function compare(args: readonly unknown[]): Promise<TrajectoryDiffPanel | undefined> {
    const refs = await pair(args, 'Compare Trajectories');
    if (!refs) return undefined;
    const panel = TrajectoryDiffPanel.show(refs[0], refs[1], access, diffHooks, log, extensionUri);
    viewOpened('seedStudio.walkthrough.trajectoriesCompared');
    return panel;
  }

  return vscode.Disposable.from(
    registerTrajectoryDocuments(access),
    vscode.commands.registerCommand(TRAJECTORY_COMMANDS.open, async (...args: unknown[]) => {
      const ref = await completeRef(access, refFromArgs(args), 'Open Trajectory');
      if (!ref) return undefined;
      const viewer = openViewer(ref);
      viewOpened('seedStudio.walkthrough.trajectoryOpened');
      return viewer;
    }),
    vscode.commands.registerCommand(TRAJECTORY_COMMANDS.whatIf, (runDir: string, id: string, skill: string) => {
      const viewer = openViewer({ runDir, id });
      viewer.startWhatIf(skill);
      return viewer;
    }),
    vscode.commands.registerCommand(TRAJECTORY_COMMANDS.compare, (...args: unknown[]) => compare(args)),
    vscode.commands.registerCommand(TRAJECTORY_COMMANDS.textDiff, async (...args: unknown[]) => {
      const refs = await pair(args, 'Open Trajectories as Text Diff');
      if (refs) await openTextDiff(refs[0], refs[1]);
      return refs !== undefined;
    }),
    vscode.commands.registerCommand(TRAJECTORY_COMMANDS.asText, async (...args: unknown[]) => {
      const ref = await completeRef(access, refFromArgs(args), 'Open Trajectory as Text');
      return ref ? vscode.window.showTextDocument(trajectoryTextUri(ref), { preview: false }) : undefined;
    }),
    // Panels come back after a window reload: the webviews keep their trajectory refs in their state. (VS Code holds
    // the serializers' stand-ins from activation on: featureStandIns.ts.)
    providePanelSerializer(TRAJECTORY_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel, state: unknown) => {
        const ref = toTrajectoryRef(state);
        if (ref) openViewer(ref, panel);
        else panel.dispose();
      },
    }),
    providePanelSerializer(DIFF_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel, state: unknown) => {
        const refs = state && typeof state === 'object' ? [toTrajectoryRef((state as { a?: unknown }).a), toTrajectoryRef((state as { b?: unknown }).b)] : [];
        if (refs[0] && refs[1]) TrajectoryDiffPanel.show(refs[0], refs[1], access, diffHooks, log, extensionUri, panel);
        else panel.dispose();
      },
    }),
  );
}
