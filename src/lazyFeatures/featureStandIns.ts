// Activation registers stand-ins for what the feature bundle (src/features.ts, dist/features.js) provides, so that
// bundle is read only when first needed: a command of its, a panel VS Code restores, the skill review editor, a
// trajectory text document, or an open document it serves (an experiment file, a skills.jsonl). The first such use
// requires the bundle, which registers everything as before; the stand-in then hands over. bench/extension/extension.mjs
// measures activation and that first load; test/unit/lazyFeatures/featureStandIns.test.ts checks that the lists below
// are what the bundle registers.
import path from 'node:path';
import * as vscode from 'vscode';

/** The commands the feature bundle registers (the core's own: seedStudio.showTrainerStatus, seedStudio.runs.compare). */
export const FEATURE_COMMANDS: readonly string[] = [
  'seedStudio.openTrajectory',
  'seedStudio.compareTrajectories',
  'seedStudio.openTrajectoryTextDiff',
  'seedStudio.openTrajectoryAsText',
  'seedStudio.whatIfTrajectory',
  'seedStudio.openTrajectoryTable',
  'seedStudio.reviewSkills',
  'seedStudio.reviewSkill',
  'seedStudio.editSkill',
  'seedStudio.newExperiment',
  'seedStudio.installBuiltinModel',
  'seedStudio.train',
  'seedStudio.stopRun',
  'seedStudio.resumeRun',
  'seedStudio.openRunFolder',
  'seedStudio.showRunLog',
  'seedStudio.refreshRuns',
  'seedStudio.setUpTrainer',
  'seedStudio.openDashboard',
  'seedStudio.openTensorBoard',
  'seedStudio.walkthrough.newGpuExperiment',
  'seedStudio.openRunsTable',
  'seedStudio.openEvalSamples',
  'seedStudio.exportCheckpoint',
  'seedStudio.showPremiseReport',
];

/** Webview panels the feature bundle restores after a reload (their serializers). */
export const FEATURE_PANELS: readonly string[] = ['seedStudio.trajectory', 'seedStudio.trajectoryDiff', 'seedStudio.dashboard'];

/** The skill review's custom editor (package.json's customEditors), with the options it is registered with. */
export const FEATURE_CUSTOM_EDITORS: ReadonlyArray<{ viewType: string; options: { supportsMultipleEditorsPerDocument: boolean; webviewOptions: vscode.WebviewPanelOptions } }> = [
  { viewType: 'seedStudio.skillReview', options: { supportsMultipleEditorsPerDocument: true, webviewOptions: { retainContextWhenHidden: false } } },
];

/** Virtual documents of the feature bundle (trajectories as text). */
export const FEATURE_TEXT_SCHEMES: readonly string[] = ['seed-trajectory'];

/** Whether an open document is one the feature bundle serves with diagnostics, lenses, completions or a status bar. */
export function servedDocument(uri: { path: string; scheme: string }): boolean {
  return /\.seed\.ya?ml$/i.test(uri.path) || path.posix.basename(uri.path) === 'skills.jsonl' || FEATURE_TEXT_SCHEMES.includes(uri.scheme);
}

/** What the feature bundle registers here instead of with VS Code: the implementations behind the stand-ins. */
const provided = {
  panels: new Map<string, vscode.WebviewPanelSerializer>(),
  customEditors: new Map<string, vscode.CustomTextEditorProvider>(),
  textContent: new Map<string, vscode.TextDocumentContentProvider>(),
};

function provide<T>(map: Map<string, T>, key: string, value: T): vscode.Disposable {
  if (map.has(key)) throw new Error(`${key} is provided twice`);
  map.set(key, value);
  return { dispose: () => map.delete(key) };
}

/** The feature bundle's side: the serializer behind a panel's stand-in (in place of registerWebviewPanelSerializer). */
export function providePanelSerializer(viewType: string, serializer: vscode.WebviewPanelSerializer): vscode.Disposable {
  return provide(provided.panels, viewType, serializer);
}

/** …the custom editor behind its stand-in (in place of registerCustomEditorProvider). */
export function provideCustomEditor(viewType: string, provider: vscode.CustomTextEditorProvider): vscode.Disposable {
  return provide(provided.customEditors, viewType, provider);
}

/** …the text content behind a scheme's stand-in (in place of registerTextDocumentContentProvider). */
export function provideTextContent(scheme: string, provider: vscode.TextDocumentContentProvider): vscode.Disposable {
  return provide(provided.textContent, scheme, provider);
}

/** The stand-ins with nothing behind them: all of them before the features load, none after. */
export function unprovided(): string[] {
  return [
    ...FEATURE_PANELS.filter((viewType) => !provided.panels.has(viewType)),
    ...FEATURE_CUSTOM_EDITORS.filter(({ viewType }) => !provided.customEditors.has(viewType)).map(({ viewType }) => viewType),
    ...FEATURE_TEXT_SCHEMES.filter((scheme) => !provided.textContent.has(scheme)),
  ];
}

/** The feature bundle's module, required where esbuild cannot see it (the name is not a literal): dist/features.js
 * beside dist/extension.js, which holds this module; in the tests' file-by-file build, out/src/features.js. */
export function requireFeatureBundle(): unknown {
  const file = path.basename(__dirname) === 'dist' ? path.join(__dirname, 'features.js') : path.join(__dirname, '..', 'features.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deliberate lazy load (see above)
  return require(file);
}

function missing(kind: string, key: string): Error {
  return new Error(`SEED Studio: the feature bundle provides no ${kind} for ${key}`);
}

/** The stand-ins, and the features once `load` (which requires and activates the bundle) has run. */
export class FeatureStandIns<Features extends { disposable: vscode.Disposable }> implements vscode.Disposable {
  private loaded: Features | undefined;
  private readonly commands: vscode.Disposable[];
  private readonly others: vscode.Disposable[];
  private readonly triggers: vscode.Disposable[];
  private failure: unknown;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly load: () => Features,
  ) {
    // A command's stand-in gives way to the real command, then runs it.
    this.commands = FEATURE_COMMANDS.map((id) =>
      vscode.commands.registerCommand(id, (...args: unknown[]) => {
        this.features();
        return vscode.commands.executeCommand(id, ...args);
      }),
    );
    this.others = [
      ...FEATURE_PANELS.map((viewType) =>
        vscode.window.registerWebviewPanelSerializer(viewType, {
          deserializeWebviewPanel: (panel, state: unknown) => {
            this.features();
            const serializer = provided.panels.get(viewType);
            if (!serializer) throw missing('panel serializer', viewType);
            return serializer.deserializeWebviewPanel(panel, state);
          },
        }),
      ),
      ...FEATURE_CUSTOM_EDITORS.map(({ viewType, options }) =>
        vscode.window.registerCustomEditorProvider(
          viewType,
          {
            resolveCustomTextEditor: (document, panel, token) => {
              this.features();
              const provider = provided.customEditors.get(viewType);
              if (!provider) throw missing('custom editor', viewType);
              return provider.resolveCustomTextEditor(document, panel, token);
            },
          },
          options,
        ),
      ),
      ...FEATURE_TEXT_SCHEMES.map((scheme) =>
        vscode.workspace.registerTextDocumentContentProvider(scheme, {
          provideTextDocumentContent: (uri, token) => {
            this.features();
            const provider = provided.textContent.get(scheme);
            if (!provider) throw missing('text content', scheme);
            return provider.provideTextDocumentContent(uri, token);
          },
        }),
      ),
    ];
    // Documents the bundle serves: those open now right after activation, later ones as they open.
    this.triggers = [
      vscode.workspace.onDidOpenTextDocument((document) => {
        if (servedDocument(document.uri)) this.features();
      }),
    ];
    if (vscode.workspace.textDocuments.some((document) => servedDocument(document.uri))) {
      const timer = setTimeout(() => this.features(), 0);
      this.triggers.push({ dispose: () => clearTimeout(timer) });
    }
  }

  /** The feature bundle, required and activated on the first call. */
  features(): Features {
    if (this.loaded) return this.loaded;
    if (this.failure !== undefined) throw this.failure;
    for (const disposable of [...this.commands.splice(0), ...this.triggers.splice(0)]) disposable.dispose();
    const started = performance.now();
    try {
      this.loaded = this.load();
    } catch (error) {
      // Not retried: the bundle may have registered part of itself before it failed.
      this.failure = error;
      this.log.error(`SEED Studio's features failed to load: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      throw error;
    }
    this.log.info(`features loaded in ${Math.round(performance.now() - started)} ms`);
    const orphans = unprovided();
    if (orphans.length > 0) this.log.warn(`stand-ins without an implementation in the feature bundle: ${orphans.join(', ')}`);
    return this.loaded;
  }

  /** The features if loaded, without loading them. */
  get current(): Features | undefined {
    return this.loaded;
  }

  dispose(): void {
    for (const disposable of [...this.commands.splice(0), ...this.triggers.splice(0), ...this.others.splice(0)]) disposable.dispose();
    this.loaded?.disposable.dispose();
  }
}
