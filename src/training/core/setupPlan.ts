// What "SEED: Set Up Trainer" runs, as data (no `vscode`): create a virtual environment unless the interpreter
// already is one, install PyTorch only when none imports (a CUDA build the user has is never replaced), then install
// or update the trainer package from the extension's own copy of trainer/, with the optional extras chosen
// (`trainer[textworld,alfworld]`). With a torch already there, that install also pins it (`torch==<its version>`):
// an extra that asks for another torch then fails with pip's message instead of swapping a CUDA build for a CPU one.
import path from 'node:path';

export interface InterpreterFacts {
  executable: string;
  /** sys.prefix != sys.base_prefix */
  isVenv: boolean;
  torchImportable: boolean;
  /** The installed torch distribution's version (`2.13.0+cu128`), when there is one. */
  torchVersion?: string | null;
}

export interface SetupStep {
  title: string;
  file: string;
  args: string[];
}

export interface SetupPlan {
  /** The interpreter the trainer will run with afterwards. */
  python: string;
  /** Set when a new venv is created. */
  venvDir?: string;
  steps: SetupStep[];
}

/** The name of a pip extra (what goes between the brackets of `seed-trainer[…]`). */
const EXTRA_NAME = /^[a-z][a-z0-9_-]*$/;

export function venvInterpreter(venvDir: string, platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? path.join(venvDir, 'Scripts', 'python.exe') : path.join(venvDir, 'bin', 'python');
}

export function planSetup(options: {
  facts: InterpreterFacts;
  /** Where to create a venv when the interpreter is not one. */
  newVenvDir: string;
  trainerSource: string;
  editable: boolean;
  torchRequirement: string;
  /** Optional extras of seed-trainer to install with it (`textworld`, `alfworld`, …). */
  extras?: readonly string[];
  platform?: NodeJS.Platform;
}): SetupPlan {
  const { facts } = options;
  const steps: SetupStep[] = [];
  let python = facts.executable;
  let venvDir: string | undefined;
  if (!facts.isVenv) {
    venvDir = options.newVenvDir;
    steps.push({ title: `Creating a virtual environment in ${venvDir}`, file: facts.executable, args: ['-m', 'venv', venvDir] });
    python = venvInterpreter(venvDir, options.platform);
  }
  const pip = (title: string, ...args: string[]): SetupStep => ({
    title,
    file: python,
    args: ['-m', 'pip', 'install', '--disable-pip-version-check', ...args],
  });
  // A new venv has no torch even when the base interpreter had one.
  if (!facts.torchImportable || venvDir !== undefined) steps.push(pip(`Installing PyTorch (${options.torchRequirement})`, options.torchRequirement));
  const extras = [...new Set(options.extras ?? [])].sort();
  const bad = extras.find((extra) => !EXTRA_NAME.test(extra));
  if (bad !== undefined) throw new Error(`not an extra of seed-trainer: ${JSON.stringify(bad)}`);
  const target = extras.length > 0 ? `${options.trainerSource}[${extras.join(',')}]` : options.trainerSource;
  const source = options.editable ? ['-e', target] : [target];
  const keepTorch = venvDir === undefined && facts.torchImportable && facts.torchVersion ? [`torch==${facts.torchVersion}`] : [];
  const title = extras.length > 0 ? `Installing the SEED trainer with ${extras.join(', ')}` : 'Installing the SEED trainer';
  steps.push(pip(title, '--upgrade', ...source, ...keepTorch));
  return { python, steps, ...(venvDir ? { venvDir } : {}) };
}

/** The Python snippet that prints InterpreterFacts as JSON. */
export const FACTS_SCRIPT = [
  'import json, sys, importlib.util, importlib.metadata',
  'try:',
  '    torch_version = importlib.metadata.version("torch")',
  'except Exception:',
  '    torch_version = None',
  'print(json.dumps({"executable": sys.executable, "isVenv": sys.prefix != getattr(sys, "base_prefix", sys.prefix),',
  '  "torchImportable": importlib.util.find_spec("torch") is not None, "torchVersion": torch_version}))',
].join('\n');
