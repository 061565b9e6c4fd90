// The recorded gates of a real tiny SEED run are reproduced from its checkpoint's ONNX export: the trainer writes a
// two-update run and exports checkpoint 1 (trainer/tests/support/make_whatif_run.py); update 2's teacher pass ran on those
// weights, so rescoring its trajectories with their own skills must give back their gates.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { decodeFloat32, decodeInt32 } from '../../../src/runs/shared/tokenArrays';
import type { Trajectory } from '../../../src/runs/shared/types';
import { RunSchemas } from '../../../src/runs/core/schemas';
import { WhatIfError } from '../../../src/whatIf/core/errors';
import { gateFlips } from '../../../src/whatIf/shared/gateFlips';
import { Rescorer } from '../../../src/whatIf/core/rescore';
import { rescoreWithTrainer } from '../../../src/whatIf/core/trainerRescore';
import { repoRoot, trainerPython } from '../support/repoPaths';

const root = mkdtempSync(path.join(os.tmpdir(), 'seed-whatif-run-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** Recorded and recomputed log-probs are both float32 PyTorch vs onnxruntime; the gate's slope is at most β/4. */
const LOGP_TOLERANCE = 1e-4;

test('rescoring update 2 of a real run from checkpoint 1\'s export gives back its recorded gates', { timeout: 600_000 }, async () => {
  const made = execFileSync(trainerPython(), [path.join(repoRoot, 'trainer', 'tests', 'support', 'make_whatif_run.py'), root], {
    cwd: path.join(repoRoot, 'trainer', 'tests', 'support'),
    env: { ...process.env, OMP_NUM_THREADS: '1' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const { run, export: exportDir } = JSON.parse(made.trim().split('\n').pop()!) as { run: string; export: string };
  const runId = (JSON.parse(readFileSync(path.join(run, 'run.json'), 'utf8')) as { id: string }).id;
  const lines = readFileSync(path.join(run, 'trajectories', 'it-000002.jsonl'), 'utf8').trim().split('\n');
  let tokens = 0;
  let worstLogp = 0;
  let worstGate = 0;
  for (const line of lines) {
    const trajectory = JSON.parse(line) as Trajectory;
    const skill = trajectory.skill?.text;
    assert.ok(trajectory.skill?.valid && skill, 'the oracle writes a valid skill for every trajectory');
    const steps = trajectory.steps.map((step) => ({ t: step.t, prompt: step.prompt ?? '', responseIds: decodeInt32(step.tokens!.ids), response: step.response }));
    const rescorer = await Rescorer.open(exportDir, steps, { runId });
    try {
      const result = await rescorer.rescore(skill);
      for (const [i, step] of trajectory.steps.entries()) {
        const recorded = step.tokens!;
        const mine = result.steps[i]!;
        const pairs: [Float32Array, string | undefined][] = [
          [mine.studentLogp, recorded.logp],
          [mine.teacherLogp, recorded.teacher_logp],
        ];
        for (const [values, encoded] of pairs) {
          const expected = decodeFloat32(encoded!);
          expected.forEach((v, k) => (worstLogp = Math.max(worstLogp, Math.abs(v - values[k]!))));
        }
        decodeFloat32(recorded.gate!).forEach((v, k) => (worstGate = Math.max(worstGate, Math.abs(v - mine.gate[k]!))));
        tokens += mine.gate.length;
      }
    } finally {
      await rescorer.close();
    }
  }
  console.log(`${lines.length} trajectories, ${tokens} tokens: worst log-prob difference ${worstLogp.toExponential(2)}, worst gate difference ${worstGate.toExponential(2)}`);
  assert.ok(tokens > 0);
  assert.ok(worstLogp <= LOGP_TOLERANCE, `log-probs differ by ${worstLogp}`);
  assert.ok(worstGate <= 4 * LOGP_TOLERANCE, `gates differ by ${worstGate}`);

  // The same export refuses another run's trajectories.
  await assert.rejects(Rescorer.open(exportDir, [], { runId: 'another-run' }), /exported from run .* not from another-run/);

  await trainerPathChecks(run, JSON.parse(lines[0]!) as Trajectory, exportDir, runId);
});

/** The fallback through a real trainer process (python -m seed_trainer rescore) gives the numbers the ONNX path and
 * the run's own teacher pass give; it is cancellable and its refusals arrive as one clear message. */
async function trainerPathChecks(run: string, trajectory: Trajectory, exportDir: string, runId: string): Promise<void> {
  const schemas = RunSchemas.load();
  const skill = trajectory.skill!.text!;
  const python = trainerPython();
  const env = { OMP_NUM_THREADS: '1' };
  const progress: [number, number][] = [];
  const file = await rescoreWithTrainer(run, trajectory.id, [skill], schemas, { python, env, onProgress: (done, total) => progress.push([done, total]) });
  const record = file.results[0]!;
  assert.equal(record.path, 'trainer');
  assert.equal(record.export, 'checkpoints/step-000001', 'update 2 is scored by the weights after update 1');
  assert.ok(record.seconds > 0);
  assert.deepEqual(progress.at(-1), [2 * trajectory.steps.length, 2 * trajectory.steps.length]);
  const steps = trajectory.steps.map((step) => ({ t: step.t, prompt: step.prompt ?? '', responseIds: decodeInt32(step.tokens!.ids), response: step.response }));
  const rescorer = await Rescorer.open(exportDir, steps, { runId });
  const onnx = await rescorer.rescore(skill).finally(() => rescorer.close());
  let worstRecorded = 0;
  let worstOnnx = 0;
  for (const [i, step] of record.steps.entries()) {
    const recorded = decodeFloat32(trajectory.steps[i]!.tokens!.teacher_logp!);
    step.teacher_logp.forEach((v, k) => {
      worstRecorded = Math.max(worstRecorded, Math.abs(v - recorded[k]!));
      worstOnnx = Math.max(worstOnnx, Math.abs(v - onnx.steps[i]!.teacherLogp[k]!));
    });
    step.gate.forEach((v, k) => (worstOnnx = Math.max(worstOnnx, Math.abs(v - onnx.steps[i]!.gate[k]!))));
    // The difference view never shows a token flipping between the two scorers of the same skill.
    assert.deepEqual(Array.from(gateFlips(onnx.steps[i]!.gate, step.gate)).filter((f) => f !== 0), [], `step ${step.t}: flips between the scorers`);
  }
  console.log(`trainer path: ${record.steps.length} steps in ${record.seconds} s; worst vs recorded ${worstRecorded.toExponential(2)}, vs onnxruntime-node ${worstOnnx.toExponential(2)}`);
  assert.ok(worstRecorded <= LOGP_TOLERANCE && worstOnnx <= LOGP_TOLERANCE);

  const refused = (problem: string, pattern: RegExp) => (error: unknown) => {
    assert.ok(error instanceof WhatIfError, String(error));
    assert.equal(error.problem, problem);
    assert.match(error.message, pattern);
    return true;
  };
  await assert.rejects(rescoreWithTrainer(run, trajectory.id, ['look\u0007'], schemas, { python, env }), refused('trainer', /refused: the skill holds the control character U\+0007/));
  await assert.rejects(rescoreWithTrainer(run, 'nope', ['x'], schemas, { python, env }), refused('trainer', /refused: .*no trajectory with id 'nope'/));
  await assert.rejects(rescoreWithTrainer(run, trajectory.id, ['x'], schemas, { python: path.join(run, 'no-python'), env }), refused('trainer', /Cannot start the trainer's Python .*no-python/));
  // Cancelled a second after the start (while it loads; its first progress line can take a minute on a loaded
  // machine): the process is ended and nothing comes back.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 1000);
  const cancelledAt = performance.now();
  await assert.rejects(
    rescoreWithTrainer(run, trajectory.id, [skill], schemas, { python, env, signal: controller.signal, onProgress: () => controller.abort() }),
    refused('cancelled', /cancelled/),
  );
  clearTimeout(timer);
  assert.ok(performance.now() - cancelledAt < record.seconds * 1000, 'cancelling ends the process before it would have finished');
  assert.ok(!existsSync(path.join(run, 'whatif')), 'the trainer path writes nothing');
}
