// Commands of the trajectory diff and restoring its panels after a reload (the viewer's own are in
// src/trajectory/registerTrajectoryViewer.ts; the two reach each other through commands, so neither imports the other's
// registration).
//
//   seedStudio.compareTrajectories(a?, b?)   a, b: {runDir, id}          → the diff panel
//   seedStudio.openTrajectoryTextDiff(a?, b?)                            → VS Code's diff editor on text renderings
// Missing arguments are asked for with quick picks (palette use). runDir may be a path or a Uri.
import * as vscode from 'vscode';
import { TrajectoryDiffPanel, DIFF_VIEW_TYPE, type DiffHooks } from './diffPanel';
import { type RunAccess, completeRef, pickRun, pickTrajectory, refFromArgs, toTrajectoryRef, type TrajectoryRef } from '../runs/runAccess';
import { openTextDiff } from '../trajectory/trajectoryDocuments';
import { TRAJECTORY_COMMANDS, viewOpened } from '../trajectory/registerTrajectoryViewer';
import { providePanelSerializer } from '../lazyFeatures/featureStandIns';

export function registerTrajectoryDiff(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, access: RunAccess): vscode.Disposable {
  const extensionUri = context.extensionUri;
  const diffHooks: DiffHooks = {
    openViewer: (ref) => vscode.commands.executeCommand(TRAJECTORY_COMMANDS.open, ref),
    openTextDiff,
  };

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
    vscode.commands.registerCommand(TRAJECTORY_COMMANDS.compare, (...args: unknown[]) => compare(args)),
    vscode.commands.registerCommand(TRAJECTORY_COMMANDS.textDiff, async (...args: unknown[]) => {
      const refs = await pair(args, 'Open Trajectories as Text Diff');
      if (refs) await openTextDiff(refs[0], refs[1]);
      return refs !== undefined;
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
