// What the VS Code tests that train need (runs inside the extension host): the extension's API, a tiny local policy
// and an experiment for the test environment `counter_env:CounterTasks` (trainer/tests), the trainer's environment
// setting, and polling helpers. SEED_PYTHON names the trainer's interpreter (set by the runners).
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SeedStudioApi } from '../../src/extension';

// out/test/integration → the repository root.
export const repoRoot = path.resolve(__dirname, '..', '..', '..');

export function workspaceDir(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'no workspace folder is open');
  return folder.uri.fsPath;
}

export async function seedApi(): Promise<SeedStudioApi> {
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { publisher: string; name: string };
  const extension = vscode.extensions.getExtension<SeedStudioApi>(`${manifest.publisher}.${manifest.name}`);
  assert.ok(extension, 'the extension is not loaded');
  const api = await extension.activate();
  await api.services.runs.ready;
  return api;
}

export function trainerPython(): string {
  const python = process.env.SEED_PYTHON ?? path.join(repoRoot, '.venv', 'bin', 'python');
  assert.ok(existsSync(python), `no trainer interpreter at ${python}`);
  return python;
}

/** Builds the tiny Qwen2 policy (a local HF directory, < 1 s) once per workspace. */
export function tinyPolicy(dir: string): Promise<string> {
  if (existsSync(path.join(dir, 'config.json'))) return Promise.resolve(dir);
  const script = [
    'import sys',
    'from seed_trainer.models.tiny import save_tiny_policy',
    'corpus = ["Your task is to: set the counter to 3. The counter shows 0. add one. finish.",',
    '          "<think>add one</think><action>add one</action>", "Admissible actions: add one, finish."] * 20',
    'save_tiny_policy(sys.argv[1], corpus, vocab_size=300)',
  ].join('\n');
  return new Promise((resolve, reject) => {
    execFile(trainerPython(), ['-c', script, dir], { timeout: 120_000 }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`building the tiny policy failed: ${stderr || error.message}`));
      else resolve(dir);
    });
  });
}

/** A Stage-2 GRPO experiment on the counter environment, about 0.1 s per update on a CPU. */
export function writeExperiment(dir: string, name: string, options: { updates: number; modelDir: string }): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.seed.yaml`);
  writeFileSync(
    file,
    [
      `name: ${name}`,
      'algorithm: grpo',
      `updates: ${options.updates}`,
      'model:',
      `  path: ${JSON.stringify(path.relative(dir, options.modelDir) || '.')}`,
      '  device: cpu',
      'environment:',
      '  name: counter_env:CounterTasks',
      'rollout:',
      '  tasks_per_update: 2',
      '  group_size: 2',
      '  max_steps: 2',
      '  history: 1',
      '  max_prompt_tokens: 256',
      '  max_response_tokens: 6',
      'analyzer:',
      '  max_tokens: 12',
      'rl:',
      '  mini_batch_size: 4',
      '  micro_batch_size: 2',
      '  lr: 1.0e-4',
      '',
    ].join('\n'),
  );
  return file;
}

/** The trainer finds the test environment on PYTHONPATH and keeps to one thread (two cores are shared with VS Code). */
export async function configureTrainerEnv(): Promise<void> {
  await vscode.workspace
    .getConfiguration('seedStudio')
    .update('trainer.env', { PYTHONPATH: path.join(repoRoot, 'trainer', 'tests', 'support'), OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' }, vscode.ConfigurationTarget.Global);
}

export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs: number, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && (value as unknown) !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Ends a trainer's process group if a failed test left it running. */
export function killTrainer(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone
  }
}
