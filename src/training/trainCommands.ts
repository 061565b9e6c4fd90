// "SEED: Train" (palette, editor title, CodeLens), "SEED: Stop Run", "SEED: Resume Run", "SEED: Open Run Folder",
// "SEED: Show Run Log", "SEED: Refresh Runs". Train picks the experiment, the stage and the GPUs, refuses an invalid
// file, and hands the launch to the trainer host.
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { EXPERIMENT_GLOB, ExperimentService } from '../experiments/core/experimentService';
import { problemLine, type ExperimentProblem } from '../experiments/core/experimentSchema';
import { loadYaml } from '../common/core/lazyRequire';
import type { Services } from '../services';
import { resolveTrainerPython } from '../python/pythonInterpreter';
import type { RunLifetime } from './core/runSession';
import { stageChoices, type StageChoice } from '../runs/core/trainerProcess';
import { defaultAlgorithm } from '../experiments/core/algorithmCatalog';
import { summarizeProbe } from './core/trainerProbe';
import { experimentEstimate, gpuPickItems, gpusOf, launchWarning } from './core/gpuChoice';
import type { MemoryEstimate } from './core/memoryEstimate';
import { queryGpus } from './core/gpuQuery';
import { isLive, pickRun as pickRunOf, type RunEntry } from '../runs/runsModel';
import { refuseWhenUntrusted } from '../common/trust';
import { baselineArgs, chooseBaselines, type EvalRunFacts } from './core/baselineEvals';
import { EXPERIMENT_SEARCH_EXCLUDE, experimentChoices } from './core/experimentChoices';

interface TrainArgs {
  experiment?: string | vscode.Uri;
  /** A stage id of stageChoices (`train:seed`, `collect`, …) or a CLI command (`train` = the file's algorithm). */
  stage?: string;
  gpus?: number[];
  lifetime?: RunLifetime;
  /** Change the file's `algorithm` without asking when the stage needs another one. */
  confirmAlgorithmChange?: boolean;
  /** Evaluate: the split (asked when missing) and the checkpoint (default: the experiment's model). */
  split?: string;
  checkpoint?: string;
  /** Stage-1 SFT: the collect run to train on, when the file has no `sft.data` (asked when missing). */
  data?: string;
}

export interface TrainResult {
  runDir: string;
  runId: string;
  pid: number;
  logFile: string;
}

/** The run directory a command argument names: a path, a Uri, or a runs-tree node. */
export function runDirOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg instanceof vscode.Uri) return arg.fsPath;
  if (arg && typeof arg === 'object' && typeof (arg as { dir?: unknown }).dir === 'string') return (arg as { dir: string }).dir;
  return undefined;
}

async function pickExperiment(arg: TrainArgs['experiment']): Promise<vscode.Uri | undefined> {
  if (arg) return typeof arg === 'string' ? vscode.Uri.file(arg) : arg;
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active && ExperimentService.isExperiment(active)) return active;
  // Not dependencies, build output or (while there is anything else) test fixtures; the shallowest first.
  const found = await vscode.workspace.findFiles(EXPERIMENT_GLOB, EXPERIMENT_SEARCH_EXCLUDE, 2000);
  const files = experimentChoices(found, (uri) => vscode.workspace.asRelativePath(uri, false));
  if (files.length === 0) {
    void vscode.window.showWarningMessage('SEED: no *.seed.yaml experiment in this workspace.', 'New Experiment').then((pick) => {
      if (pick) void vscode.commands.executeCommand('seedStudio.newExperiment');
    });
    return undefined;
  }
  if (files.length === 1) return files[0];
  const picked = await vscode.window.showQuickPick(
    files.map((uri) => ({ label: path.basename(uri.fsPath), description: vscode.workspace.asRelativePath(uri, true), uri })),
    { title: 'SEED: Train — experiment', placeHolder: 'Which experiment?', ignoreFocusOut: true }, // see pickRun
  );
  return picked?.uri;
}

async function pickStage(choices: readonly StageChoice[], requested: string | undefined, fileAlgorithm: string): Promise<StageChoice | undefined> {
  if (requested) {
    if (requested === 'train') return choices.find((c) => c.algorithm === fileAlgorithm);
    const found = choices.find((c) => c.id === requested);
    if (!found) throw new Error(`unknown stage ${JSON.stringify(requested)} (one of ${choices.map((c) => c.id).join(', ')})`);
    return found;
  }
  const items = choices.map((choice) => ({
    label: choice.label,
    description: choice.algorithm === fileAlgorithm ? '(this file’s algorithm)' : choice.algorithm ? `sets algorithm: ${choice.algorithm}` : '',
    detail: choice.detail,
    choice,
  }));
  const preferred = items.find((item) => item.choice.algorithm === fileAlgorithm);
  if (preferred) {
    items.splice(items.indexOf(preferred), 1);
    items.unshift(preferred);
  }
  const picked = await vscode.window.showQuickPick(items, { title: 'SEED: Train — stage', placeHolder: 'What to run', ignoreFocusOut: true });
  return picked?.choice;
}

/** Sets the top-level `algorithm` of an experiment document (a workspace edit, then saved). */
async function setAlgorithm(document: vscode.TextDocument, algorithm: string): Promise<boolean> {
  const text = document.getText();
  const { isMap, isScalar, parseDocument } = loadYaml();
  const parsed = parseDocument(text);
  const edit = new vscode.WorkspaceEdit();
  const root = parsed.contents;
  const pair = isMap(root) ? root.items.find((item) => isScalar(item.key) && item.key.value === 'algorithm') : undefined;
  const range = pair && isScalar(pair.value) ? pair.value.range : undefined;
  if (range) {
    edit.replace(document.uri, new vscode.Range(document.positionAt(range[0]), document.positionAt(range[1])), algorithm);
  } else {
    const nameLine = text.split('\n').findIndex((line) => /^name\s*:/.test(line));
    edit.insert(document.uri, new vscode.Position(nameLine >= 0 ? nameLine + 1 : 0, 0), `algorithm: ${algorithm}\n`);
  }
  return (await vscode.workspace.applyEdit(edit)) && (await document.save());
}

/**
 * The GPUs to train on: each GPU with its free memory (nvidia-smi, else the interpreter probe) against the
 * experiment's memory estimate; several → one process per GPU under torchrun. A pick that will not fit asks before
 * launching. undefined: no GPU (the trainer's own choice); null: cancelled.
 */
async function pickGpus(services: Services, extensionRoot: string, python: string, requested: number[] | undefined, experiment: { text: string; file: string }): Promise<number[] | undefined | null> {
  const probe = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'SEED: checking the Python environment' },
    () => services.probes.get(python),
  );
  if (!probe.ok || !probe.report.trainer.importable || !probe.report.torch.importable) {
    void vscode.window
      .showErrorMessage(`SEED: the trainer cannot run with ${python}: ${summarizeProbe(probe)}.`, 'Set Up Trainer', 'Show Trainer Status')
      .then((pick) => {
        if (pick === 'Set Up Trainer') void vscode.commands.executeCommand('seedStudio.setUpTrainer');
        if (pick === 'Show Trainer Status') void vscode.commands.executeCommand('seedStudio.showTrainerStatus');
      });
    return null;
  }
  const probed = probe.report.torch.cuda?.available ? probe.report.torch.cuda.devices : [];
  const query = await queryGpus();
  if (!query.ok) services.log.info(`gpus: ${query.reason}${probed.length > 0 ? '; using the devices torch reports' : ''}`);
  const gpus = gpusOf(query, probed);
  if (gpus.length === 0) return requested;
  const estimated = experimentEstimate(experiment.text, experiment.file, extensionRoot);
  // Per GPU: one process's share; with distributed.strategy fsdp it shrinks with the GPUs picked, so the list is
  // checked against the share over all of them and the launch against the share over those picked.
  const forProcesses = (n: number): MemoryEstimate | undefined => (estimated.ok ? estimated.forProcesses(n) : undefined);
  const estimate = forProcesses(1);
  services.log.info(`memory: ${estimated.ok ? estimated.estimate.summary : estimated.reason}`);
  let chosen = requested;
  if (!chosen && gpus.length > 1) {
    const items = gpuPickItems(gpus, forProcesses(gpus.length)?.sharded ? forProcesses(gpus.length) : estimate);
    const picked = await vscode.window.showQuickPick(
      items.map((item) => ({ ...item, picked: item.fits })),
      {
        title: `SEED: Train — GPUs (the run needs ${estimate ? estimate.summary : `an unknown amount: ${estimated.ok ? '' : estimated.reason}`})`,
        placeHolder: 'GPUs to train on (several: one process per GPU under torchrun, each with a whole replica, or a shard with distributed.strategy: fsdp)',
        canPickMany: true,
      },
    );
    if (!picked || picked.length === 0) return null;
    chosen = picked.map((item) => item.index);
  }
  const onDevices = chosen ? gpus.filter((gpu) => chosen.includes(gpu.index)) : gpus.slice(0, 1);
  const warning = launchWarning(forProcesses(onDevices.length), onDevices);
  if (warning) {
    const answer = await vscode.window.showWarningMessage(`SEED: ${warning}`, { modal: true, detail: 'Lower rl.micro_batch_size or set rl.micro_batch_tokens, turn on model.gradient_checkpointing, or train LoRA adapters (model.lora).' }, 'Train Anyway');
    if (answer !== 'Train Anyway') return null;
  }
  return chosen;
}

/** The runs of a stage on this machine's workspace, newest first, for picking an input. */
function runsOfStage(services: Services, stages: readonly string[]): RunEntry[] {
  return services.runs.runs().filter((entry) => entry.index.manifest && stages.includes(entry.index.manifest.stage) && !isLive(entry.state));
}

/** The stage's own options: eval → `--split` (+ `--checkpoint`), sft without `sft.data` → `--data` (not for
 *  `sft.mode: agent`, which trains on the environment's demonstrations). undefined = cancelled. */
async function stageOptions(services: Services, choice: StageChoice, facts: ReturnType<typeof ExperimentService.facts>, args: TrainArgs): Promise<string[] | undefined> {
  if (choice.command === 'eval') {
    let split = args.split;
    if (!split) {
      const known = [...new Set([...(facts.evalSplits ?? []), 'valid_seen', 'valid_unseen'])];
      const picked = await vscode.window.showQuickPick([...known.map((label) => ({ label })), { label: 'Other…' }], {
        title: 'SEED: Evaluate — split',
        placeHolder: 'Which split of the environment to evaluate (plain prompt, no skill)',
      });
      split = picked?.label === 'Other…' ? await vscode.window.showInputBox({ title: 'SEED: Evaluate — split', prompt: 'Split name' }) : picked?.label;
    }
    if (!split) return undefined;
    let checkpoint = args.checkpoint;
    if (checkpoint === undefined && !args.split) {
      const items: Array<vscode.QuickPickItem & { dir?: string }> = [{ label: 'The experiment’s model', description: 'model.path' }];
      for (const entry of runsOfStage(services, ['train', 'sft'])) {
        const latest = (await entry.index.reader.listCheckpoints().catch(() => [])).pop();
        if (latest) items.push({ label: `${entry.index.manifest?.name ?? ''} · step ${latest.step}`, description: entry.index.manifest?.id, dir: latest.dir });
      }
      const picked = items.length > 1 ? await vscode.window.showQuickPick(items, { title: 'SEED: Evaluate — weights' }) : items[0];
      if (!picked) return undefined;
      checkpoint = picked.dir;
    }
    return ['--split', split, ...(checkpoint ? ['--checkpoint', checkpoint] : [])];
  }
  if (choice.command === 'sft' && !facts.sftData && facts.sftMode !== 'agent') {
    let data = args.data;
    if (!data) {
      const collected = runsOfStage(services, ['collect']);
      if (collected.length === 0) {
        void vscode.window.showErrorMessage('SEED: Stage-1 SFT needs collected analyses: set `sft.data` in the experiment, or run Stage 1 · Collect first.');
        return undefined;
      }
      const picked = await vscode.window.showQuickPick(
        collected.map((entry) => ({ label: entry.index.manifest?.name ?? path.basename(entry.dir), description: `${entry.index.manifest?.id ?? ''} · ${entry.state}`, dir: entry.dir })),
        { title: 'SEED: Stage 1 · SFT — data', placeHolder: 'The collect run whose reviewed skills to train on' },
      );
      data = picked?.dir;
    }
    return data ? ['--data', data] : undefined;
  }
  return [];
}

/** The completed eval runs of the workspace that evaluated `modelPath` of this experiment file, per split. */
async function baseEvaluations(services: Services, experimentFile: string, modelPath: string | undefined): Promise<Map<string, string>> {
  const candidates: EvalRunFacts[] = await Promise.all(
    runsOfStage(services, ['eval']).map(async (entry) => {
      const reader = entry.index.reader;
      const splits = await reader.listEvalSplits().catch(() => [] as string[]);
      const reports = await Promise.all(splits.map((split) => reader.readEval(split).then((r) => ({ split, step: r.step }), () => undefined)));
      return {
        dir: entry.dir,
        manifest: entry.index.manifest,
        completed: entry.state === 'completed',
        reports: reports.filter((r): r is { split: string; step: number | null } => r !== undefined),
      };
    }),
  );
  return chooseBaselines(experimentFile, modelPath, candidates);
}

/** Shows the first problem as the trainer's `validate` prints it; true when there were errors. */
function refuseInvalid(document: vscode.TextDocument, problems: readonly ExperimentProblem[]): boolean {
  const errors = problems.filter((p) => p.severity === 'error');
  const first = errors[0];
  if (!first) return false;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length === 2 ? '' : 's'})` : '';
  void vscode.window.showTextDocument(document, { preview: false });
  void vscode.window
    .showErrorMessage(`SEED: cannot train: ${problemLine(document.uri.fsPath, first)}${more}`, 'Show Problems')
    .then((pick) => {
      if (pick) void vscode.commands.executeCommand('workbench.actions.view.problems');
    });
  return true;
}

async function train(services: Services, extensionRoot: string, arg?: vscode.Uri | TrainArgs): Promise<TrainResult | undefined> {
  if (refuseWhenUntrusted('launch the trainer')) return undefined;
  const args: TrainArgs = arg instanceof vscode.Uri ? { experiment: arg } : (arg ?? {});
  const uri = await pickExperiment(args.experiment);
  if (!uri) return undefined;
  const document = await vscode.workspace.openTextDocument(uri);
  // The editor's text first (nothing is saved while it is invalid), then the bytes the trainer will read: the same
  // rules as `python -m seed_trainer validate`, so the refusal quotes the line the trainer would print.
  if (refuseInvalid(document, await services.experiments.problemsAsync(document))) return undefined;
  if (document.isDirty) await document.save();
  if (refuseInvalid(document, await services.experiments.problemsOfFile(uri.fsPath))) return undefined;
  let facts = ExperimentService.facts(document.getText(), uri.fsPath);
  const fileAlgorithm = facts.algorithm ?? defaultAlgorithm(services.experiments.schema);
  const choice = await pickStage(stageChoices(services.experiments.algorithms), args.stage, fileAlgorithm);
  if (!choice) return undefined;
  if (choice.algorithm && choice.algorithm !== fileAlgorithm) {
    const confirmed =
      args.confirmAlgorithmChange ||
      (await vscode.window.showInformationMessage(
        `SEED: ${path.basename(uri.fsPath)} trains with algorithm ${fileAlgorithm}. Set \`algorithm: ${choice.algorithm}\` in the file and train?`,
        { modal: true, detail: 'The experiment file is the record of what a run did (its hash is in run.json), so the stage is written into it.' },
        'Set and Train',
      )) === 'Set and Train';
    if (!confirmed || !(await setAlgorithm(document, choice.algorithm))) return undefined;
    if (refuseInvalid(document, await services.experiments.problemsAsync(document))) return undefined;
    facts = ExperimentService.facts(document.getText(), uri.fsPath);
  }
  const extraArgs = await stageOptions(services, choice, facts, args);
  if (!extraArgs) return undefined;
  // Evaluate (the base) → Train: the base evaluations of this experiment are linked to the new run (before/after).
  if (choice.command === 'train') extraArgs.push(...baselineArgs(await baseEvaluations(services, uri.fsPath, facts.modelPath)));
  const python = (await resolveTrainerPython(uri)).path;
  const gpus = await pickGpus(services, extensionRoot, python, args.gpus, { text: document.getText(), file: uri.fsPath });
  if (gpus === null) return undefined;
  try {
    const session = await services.trainer.launch({
      command: choice.command,
      experiment: uri.fsPath,
      name: facts.name ?? path.basename(uri.fsPath).replace(/\.seed\.ya?ml$/i, ''),
      runsDir: facts.runsDir,
      python,
      ...(gpus ? { gpus } : {}),
      ...(args.lifetime ? { lifetime: args.lifetime } : {}),
      ...(extraArgs.length > 0 ? { extraArgs } : {}),
    });
    return { runDir: session.dir, runId: session.runId, pid: session.pid, logFile: session.logFile };
  } catch (error) {
    void vscode.window.showErrorMessage(`SEED: ${(error as Error).message}`);
    return undefined;
  }
}

async function pickRun(services: Services, arg: unknown, title: string, filter: (entry: RunEntry) => boolean): Promise<string | undefined> {
  const given = runDirOf(arg);
  if (given) return path.resolve(given);
  return pickRunOf(services.runs, { title, filter, empty: `no run to ${title.toLowerCase()}.` });
}

async function hasCheckpoint(entry: RunEntry): Promise<boolean> {
  return (await entry.index.reader.listCheckpoints().catch(() => [])).length > 0;
}

export function registerTrainCommands(context: vscode.ExtensionContext, services: Services): vscode.Disposable {
  const { runs, trainer } = services;
  return vscode.Disposable.from(
    vscode.commands.registerCommand('seedStudio.train', (arg?: vscode.Uri | TrainArgs) => train(services, context.extensionPath, arg)),
    vscode.commands.registerCommand('seedStudio.stopRun', async (arg?: unknown, options?: { force?: boolean }) => {
      if (refuseWhenUntrusted('stop runs')) return;
      const dir = await pickRun(services, arg, 'Stop Run', (entry) => isLive(entry.state));
      if (!dir) return;
      const entry = runs.get(dir);
      const alreadyStopping = trainer.sessions.get(dir)?.stopRequested || entry?.index.manifest?.status === 'stopping';
      let force = options?.force ?? false;
      if (alreadyStopping && !force) {
        force =
          (await vscode.window.showWarningMessage(
            `SEED: ${path.basename(dir)} is already stopping (it checkpoints at the end of the current step). End it now, without a checkpoint?`,
            { modal: true },
            'End Now',
          )) === 'End Now';
        if (!force) return;
      }
      await trainer.stop(dir, { force });
    }),
    vscode.commands.registerCommand('seedStudio.resumeRun', async (arg?: unknown) => {
      if (refuseWhenUntrusted('resume runs')) return undefined;
      const dir = await pickRun(services, arg, 'Resume Run', (entry) => !isLive(entry.state) && entry.state !== 'completed' && entry.state !== 'broken');
      if (!dir) return undefined;
      const entry = runs.get(dir) ?? (await runs.add(dir));
      if (isLive(entry.state)) {
        void vscode.window.showWarningMessage(`SEED: ${path.basename(dir)} is still running.`);
        return undefined;
      }
      if (!(await hasCheckpoint(entry))) {
        void vscode.window.showWarningMessage(`SEED: ${path.basename(dir)} has no checkpoint to resume from.`);
        return undefined;
      }
      try {
        const session = await trainer.resume(dir, (await resolveTrainerPython()).path);
        return { runDir: session.dir, runId: session.runId, pid: session.pid, logFile: session.logFile };
      } catch (error) {
        void vscode.window.showErrorMessage(`SEED: ${(error as Error).message}`);
        return undefined;
      }
    }),
    vscode.commands.registerCommand('seedStudio.openRunFolder', async (arg?: unknown) => {
      const dir = await pickRun(services, arg, 'Open Run Folder', () => true);
      if (!dir) return;
      if (!existsSync(dir)) {
        void vscode.window.showWarningMessage(`SEED: ${dir} does not exist (a run the trainer refused before writing it, or a folder since removed).`);
        return;
      }
      const uri = vscode.Uri.file(dir);
      if (vscode.workspace.getWorkspaceFolder(uri)) {
        await vscode.commands.executeCommand('revealInExplorer', uri);
        await vscode.window.showTextDocument(vscode.Uri.file(path.join(dir, 'run.json')), { preview: true });
      } else {
        await vscode.commands.executeCommand('vscode.openFolder', uri, { forceNewWindow: true });
      }
    }),
    vscode.commands.registerCommand('seedStudio.showRunLog', async (arg?: unknown) => {
      const dir = await pickRun(services, arg, 'Show Run Log', () => true);
      if (dir) await trainer.showLog(dir);
    }),
    vscode.commands.registerCommand('seedStudio.refreshRuns', () => runs.rescan()),
  );
}
