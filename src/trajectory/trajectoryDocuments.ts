// Read-only text renderings of trajectories as virtual documents (scheme and language `seed-trajectory`), for "Open
// as Text" and "Open as Text Diff" in VS Code's diff editor, with folding by turn.
import path from 'node:path';
import * as vscode from 'vscode';
import { renderTrajectoryText, turnFoldingRanges } from './core/textRender';
import type { RunAccess, TrajectoryRef } from '../runs/runAccess';
import { provideTextContent } from '../lazyFeatures/featureStandIns';

const TRAJECTORY_SCHEME = 'seed-trajectory';
const TRAJECTORY_LANGUAGE = 'seed-trajectory';

/** `seed-trajectory:/<run dir name>/<id>.seedtraj?run=<run dir>&id=<id>` (the .seedtraj name gives the language). */
export function trajectoryTextUri(ref: TrajectoryRef): vscode.Uri {
  const query = new URLSearchParams({ run: ref.runDir, id: ref.id }).toString();
  const safe = (text: string) => text.replace(/[\\/?#%]/g, '_');
  return vscode.Uri.from({ scheme: TRAJECTORY_SCHEME, path: `/${safe(path.basename(ref.runDir))}/${safe(ref.id)}.seedtraj`, query });
}

function refOfTextUri(uri: vscode.Uri): TrajectoryRef | undefined {
  const query = new URLSearchParams(uri.query);
  const runDir = query.get('run');
  const id = query.get('id');
  return runDir && id ? { runDir, id } : undefined;
}

class TrajectoryTextProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly access: RunAccess) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const ref = refOfTextUri(uri);
    if (!ref) return `error: ${uri.toString()} does not name a run directory and a trajectory id\n`;
    try {
      const loaded = await this.access.load(ref);
      return renderTrajectoryText(loaded.trajectory, { run: loaded.run });
    } catch (error) {
      return `error: ${(error as Error).message}\n`;
    }
  }
}

export function registerTrajectoryDocuments(access: RunAccess): vscode.Disposable {
  return vscode.Disposable.from(
    // VS Code holds the scheme's stand-in from activation on (featureStandIns.ts).
    provideTextContent(TRAJECTORY_SCHEME, new TrajectoryTextProvider(access)),
    vscode.languages.registerFoldingRangeProvider(
      { language: TRAJECTORY_LANGUAGE },
      {
        provideFoldingRanges: (document) =>
          turnFoldingRanges(document.getText()).map((range) => new vscode.FoldingRange(range.start, range.end, vscode.FoldingRangeKind.Region)),
      },
    ),
  );
}

/** Opens two trajectories' text renderings side by side in the diff editor. */
export async function openTextDiff(a: TrajectoryRef, b: TrajectoryRef): Promise<void> {
  await vscode.commands.executeCommand('vscode.diff', trajectoryTextUri(a), trajectoryTextUri(b), `${a.id} ↔ ${b.id} (text)`, { preview: false });
}
