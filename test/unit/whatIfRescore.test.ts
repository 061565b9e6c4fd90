// What-if rescoring against the shared vectors the trainer writes (test/fixtures/rescore/, make_rescore_vectors.py):
// token ids exactly, log-probs within 1e-4 of PyTorch; and every bad input refused with its own message.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { WhatIfError, type WhatIfProblem } from '../../src/whatIf/errors';
import { gateFlips } from '../../src/whatIf/gate';
import { loadOnnxExport } from '../../src/whatIf/onnxExport';
import { OnnxScorer } from '../../src/whatIf/onnxScorer';
import { PromptEncoder } from '../../src/whatIf/promptTokens';
import { Rescorer, type RescoreStep } from '../../src/whatIf/rescore';
import { insertSkill } from '../../src/whatIf/skillInsertion';
import { repoRoot } from './repoPaths';

interface Side {
  ids: number[];
  logp: number[];
}
interface TeacherVector extends Side {
  skill: string;
  teacher_prompt: string;
  delta: number[];
  gate: number[];
}
interface CaseVector {
  name: string;
  prompt: string;
  rendered: string;
  max_prompt_tokens: number;
  temperature: number;
  student: Side;
  teachers: TeacherVector[];
}
interface Vectors {
  beta: number;
  response: string;
  response_ids: number[];
  cases: CaseVector[];
}

const FIXTURE = path.join(repoRoot, 'test', 'fixtures', 'rescore');
const EXPORT = path.join(FIXTURE, 'household-tiny-onnx');
const vectors = JSON.parse(readFileSync(path.join(FIXTURE, 'vectors.json'), 'utf8')) as Vectors;
const firstCase = vectors.cases[0]!;
/** PyTorch vs onnxruntime-node, float32 both; the bar. */
const LOGP_TOLERANCE = 1e-4;
const tmpRoots: string[] = [];
after(() => tmpRoots.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function worstDifference(actual: ArrayLike<number>, expected: readonly number[]): number {
  assert.equal(actual.length, expected.length);
  let worst = 0;
  for (let i = 0; i < expected.length; i++) worst = Math.max(worst, Math.abs(actual[i]! - expected[i]!));
  return worst;
}

test('prompts and token ids equal the trainer\'s byte for byte (task line, no task line, both truncations)', () => {
  const bundle = loadOnnxExport(EXPORT);
  const encoder = new PromptEncoder(bundle, bundle.meta.prompt.skill);
  for (const vector of vectors.cases) {
    assert.equal(encoder.render(vector.prompt), vector.rendered, vector.name);
    assert.deepEqual(encoder.studentIds(vector.prompt, vector.max_prompt_tokens), vector.student.ids, vector.name);
    for (const teacher of vector.teachers) {
      assert.equal(insertSkill(vector.prompt, teacher.skill, bundle.meta.prompt.skill), teacher.teacher_prompt, vector.name);
      assert.deepEqual(encoder.teacherIds(vector.prompt, teacher.skill, vector.max_prompt_tokens), teacher.ids, `${vector.name}: ${teacher.skill}`);
    }
  }
  assert.equal(encoder.decode(vectors.response_ids), vectors.response);
});

test(`onnxruntime-node log-probs equal PyTorch's within ${LOGP_TOLERANCE}`, async () => {
  const scorer = await OnnxScorer.open(path.join(EXPORT, 'model.onnx'));
  try {
    let worst = 0;
    for (const vector of vectors.cases) {
      for (const side of [vector.student, ...vector.teachers]) {
        const logp = await scorer.responseLogprobs(side.ids, vectors.response_ids, vector.temperature);
        worst = Math.max(worst, worstDifference(logp, side.logp));
      }
    }
    console.log(`worst |TS − PyTorch| log-prob difference: ${worst.toExponential(2)} (${scorer.provider})`);
    assert.ok(worst <= LOGP_TOLERANCE, `log-probs differ by ${worst}`);
  } finally {
    await scorer.close();
  }
});

test('a Rescorer reproduces the trainer\'s gates for both skills, student scored once', async () => {
  const vector = firstCase;
  const steps: RescoreStep[] = [{ t: 0, prompt: vector.prompt, responseIds: vectors.response_ids, response: vectors.response }];
  const rescorer = await Rescorer.open(EXPORT, steps);
  try {
    assert.equal(rescorer.settings.max_prompt_tokens, vector.max_prompt_tokens);
    assert.equal(rescorer.settings.temperature, vector.temperature);
    const passes: number[] = [];
    const results = [];
    for (const teacher of vector.teachers) {
      const result = await rescorer.rescore(teacher.skill, { onProgress: (done, total) => passes.push(total) });
      const step = result.steps[0]!;
      assert.ok(worstDifference(step.teacherLogp, teacher.logp) <= LOGP_TOLERANCE);
      assert.ok(worstDifference(step.delta, teacher.delta) <= 2 * LOGP_TOLERANCE);
      // |dg/dΔ| ≤ β/4, so the gate's tolerance is β/4 times Δ's.
      assert.ok(worstDifference(step.gate, teacher.gate) <= (vectors.beta / 4) * 2 * LOGP_TOLERANCE);
      assert.equal(result.summary.tokens, vectors.response_ids.length);
      results.push(result);
    }
    assert.deepEqual(passes, [2, 2, 1], 'the second skill reuses the student log-probs');
    const flips = gateFlips(results[0]!.steps[0]!.gate, results[1]!.steps[0]!.gate);
    assert.ok(flips.some((f) => f === 1) && flips.some((f) => f === -1), 'the two skills move some tokens each way');
  } finally {
    await rescorer.close();
  }
});

function exportCopy(edit: (dir: string, meta: Record<string, unknown>) => void): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'seed-whatif-'));
  tmpRoots.push(root);
  const dir = path.join(root, 'export');
  cpSync(EXPORT, dir, { recursive: true });
  const meta = JSON.parse(readFileSync(path.join(dir, 'export.json'), 'utf8')) as Record<string, unknown>;
  edit(dir, meta);
  writeFileSync(path.join(dir, 'export.json'), JSON.stringify(meta));
  return dir;
}

async function refusal(problem: WhatIfProblem, pattern: RegExp, run: () => Promise<unknown>): Promise<void> {
  await assert.rejects(run, (error: unknown) => {
    assert.ok(error instanceof WhatIfError, String(error));
    assert.equal(error.problem, problem, error.message);
    assert.match(error.message, pattern);
    return true;
  });
}

test('bad exports, trajectories and skills are refused with a clear message', async () => {
  const vector = firstCase;
  const step: RescoreStep = { t: 3, prompt: vector.prompt, responseIds: vectors.response_ids, response: vectors.response };
  const noModel = exportCopy((dir) => unlinkSync(path.join(dir, 'model.onnx')));
  await refusal('export', /model\.onnx is missing/, () => Rescorer.open(noModel, [step]));
  const oldTrainer = exportCopy((_dir, meta) => delete meta.prompt);
  await refusal('export', /export\.json.*prompt.*is required/, () => Rescorer.open(oldTrainer, [step]));
  const otherRun = exportCopy((_dir, meta) => (meta.run = { id: 'run-b', checkpoint: 'step-000004' }));
  await refusal('mismatch', /exported from run run-b, not from run-a/, () => Rescorer.open(otherRun, [step], { runId: 'run-a' }));
  const smallModel = exportCopy((_dir, meta) => (meta.vocab_size = 512));
  await refusal('mismatch', /tokenizer has 1024 tokens but the model only 512/, () => Rescorer.open(smallModel, [step]));
  const shortContext = exportCopy((_dir, meta) => (meta.context_length = 200));
  await refusal('context', /Step 3: .*exceed the model's context of 200 tokens/, () => Rescorer.open(shortContext, [step]));
  await refusal('mismatch', /token id 5000 is outside/, () => Rescorer.open(EXPORT, [{ ...step, responseIds: [...vectors.response_ids, 5000] }]));
  await refusal('mismatch', /another tokenizer/, () => Rescorer.open(EXPORT, [{ ...step, response: 'something else' }]));
  await refusal('trajectory', /Step 3 has no recorded prompt/, () => Rescorer.open(EXPORT, [{ ...step, prompt: '' }]));
  const sdar = exportCopy((_dir, meta) => ((meta.prompt as { skill: { insertion: string } }).skill.insertion = 'prefix'));
  await refusal('export', /static prefix/, () => Rescorer.open(sdar, [step]));

  const rescorer = await Rescorer.open(EXPORT, [step]);
  try {
    await refusal('skill', /control character U\+0007 at position 6/, () => rescorer.rescore('Heat \u0007first'));
    await refusal('skill', /control character U\+202E/, () => rescorer.rescore('Heat \u202efirst'));
    await refusal('skill', /empty/, () => rescorer.rescore('  \n '));
    const controller = new AbortController();
    await refusal('cancelled', /cancelled/, () => rescorer.rescore('Heat first.', { signal: controller.signal, onProgress: () => controller.abort() }));
    // After a cancelled run the next one still works (and scores the student again: nothing half-kept).
    const totals: number[] = [];
    const result = await rescorer.rescore('Heat first.', { onProgress: (_done, total) => totals.push(total) });
    assert.equal(result.steps.length, 1);
    assert.equal(totals[0], 2);
  } finally {
    await rescorer.close();
  }
});
