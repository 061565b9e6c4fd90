// What the dashboard says after it saved an exported chart (PNG or CSV): the file's name, and where to see it. No
// `vscode` value: the host (dashboardPanel.ts) shows the message and runs the command of the action picked.

export interface SavedExportNotice {
  text: string;
  /** The buttons, in order, with the command each runs on the file's Uri. */
  actions: ReadonlyArray<{ title: 'Open' | 'Reveal'; command: string }>;
}

/**
 * `SEED: saved pg.png` with Open (in an editor: the image preview, or the CSV as text) and Reveal (in the Explorer when
 * the file is in the workspace, else in the operating system's file manager).
 */
export function savedExportNotice(file: string, inWorkspace: boolean): SavedExportNotice {
  const name = file.split(/[/\\]/).filter(Boolean).pop() ?? file;
  return {
    text: `SEED: saved ${name}`,
    actions: [
      { title: 'Open', command: 'vscode.open' },
      { title: 'Reveal', command: inWorkspace ? 'revealInExplorer' : 'revealFileInOS' },
    ],
  };
}
