// Commands of the trajectory viewer, the text documents, and restoring its panels after a reload (the diff's are in
// src/diff/registerTrajectoryDiff.ts; the viewer's Compare runs its command).
//
//   seedStudio.openTrajectory(runDir?, id?) | ({runDir, id})            → the viewer panel
//   seedStudio.openTrajectoryAsText(runDir?, id?) | ({runDir, id})      → the text rendering
//   seedStudio.whatIfTrajectory(runDir, id, skill)                       → the viewer with "What if…" open on `skill`
// Missing arguments are asked for with quick picks (palette use). runDir may be a path or a Uri.
import * as vscode from 'vscode';
import { type RunAccess, completeRef, refFromArgs, toTrajectoryRef, type TrajectoryRef } from '../runs/runAccess';
import { TRAJECTORY_VIEW_TYPE, TrajectoryPanel } from './trajectoryPanel';
import { registerTrajectoryDocuments, trajectoryTextUri } from './trajectoryDocuments';
import type { WalkthroughViewKey } from '../walkthrough/core/walkthroughContext';
import { providePanelSerializer } from '../lazyFeatures/featureStandIns';

/** Ticks the walkthrough step of a view once it opened (see walkthroughContext.ts). */
export function viewOpened(key: WalkthroughViewKey): void {
  void vscode.commands.executeCommand('setContext', key, true);
}

export const TRAJECTORY_COMMANDS = {
  open: 'seedStudio.openTrajectory',
  compare: 'seedStudio.compareTrajectories',
  textDiff: 'seedStudio.openTrajectoryTextDiff',
  whatIf: 'seedStudio.whatIfTrajectory',
  asText: 'seedStudio.openTrajectoryAsText',
} as const;

export function registerTrajectoryViewer(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, access: RunAccess): vscode.Disposable {
  const extensionUri = context.extensionUri;

  const openViewer = (ref: TrajectoryRef, existing?: vscode.WebviewPanel): TrajectoryPanel =>
    TrajectoryPanel.show(ref, access, { compare: async (a) => vscode.commands.executeCommand(TRAJECTORY_COMMANDS.compare, a) }, log, extensionUri, existing);

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
  );
}
