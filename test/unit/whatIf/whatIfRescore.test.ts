// What-if rescoring against the shared vectors the trainer writes (test/fixtures/rescore/, make_rescore_vectors.py):
// token ids exactly, log-probs within 1e-4 of PyTorch; and every bad input refused with its own message.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { WhatIfError, type WhatIfProblem } from '../../../src/whatIf/core/errors';
import { FLIP_MARGIN, gateFlips } from '../../../src/whatIf/shared/gateFlips';
import { loadOnnxExport, onnxModelBytes } from '../../../src/whatIf/core/onnxExport';
import { OnnxScorer } from '../../../src/whatIf/core/onnxScorer';
import { PromptEncoder } from '../../../src/whatIf/core/promptTokens';
import { Rescorer, type RescoreStep } from '../../../src/whatIf/core/rescore';
import { DEFAULT_MAX_ONNX_MB, chooseScorer, formatBytes } from '../../../src/whatIf/core/scorerChoice';
import { insertSkill } from '../../../src/whatIf/core/skillInsertion';
import { repoRoot, trainerPython } from '../support/repoPaths';

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

test('a flip is a gate moving clearly across 0.5; a gate within FLIP_MARGIN of 0.5 has no side', () => {
  const before = [0.5, 0.4, 0.5 + 1e-7, 0.6, 0.5 - FLIP_MARGIN / 2, 0.3];
  const after = [0.5 + 1e-7, 0.6, 0.7, 0.4, 0.6, 0.2];
  assert.deepEqual(Array.from(gateFlips(before, after)), [0, 1, 0, -1, 0, 0]);
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
  await refusal('mismatch', /tokenizer has 4096 tokens but the model only 512/, () => Rescorer.open(smallModel, [step]));
  const shortContext = exportCopy((_dir, meta) => (meta.context_length = 50));
  await refusal('context', /Step 3: .*exceed the model's context of 50 tokens/, () => Rescorer.open(shortContext, [step]));
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

test('the model size counts ONNX external data, and the size limit sends larger exports to the trainer', async () => {
  // torch.onnx.export writes models over protobuf's 2 GB limit as model.onnx plus one external file per tensor: the
  // trainer's own onnx package converts the tiny export the same way, and onnxruntime-node must still score it.
  const dir = exportCopy(() => undefined);
  const inline = statSync(path.join(dir, 'model.onnx')).size;
  assert.equal(onnxModelBytes(dir), inline, 'tokenizer, template and JSON files are not the model');
  execFileSync(trainerPython(), ['-c', [
    'import onnx, sys',
    'm = onnx.load(sys.argv[1])',
    'onnx.save_model(m, sys.argv[1], save_as_external_data=True, all_tensors_to_one_file=False, size_threshold=0)',
  ].join('\n'), path.join(dir, 'model.onnx')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const files = readdirSync(dir).filter((name) => !/\.(json|jinja)$/.test(name));
  assert.ok(files.length > 2, `external data files beside model.onnx: ${files.join(', ')}`);
  const total = files.reduce((sum, name) => sum + statSync(path.join(dir, name)).size, 0);
  assert.ok(statSync(path.join(dir, 'model.onnx')).size < inline / 10, 'the weights left model.onnx');
  assert.equal(loadOnnxExport(dir).modelBytes, total);
  assert.ok(total >= inline * 0.95, `${total} bytes counted for a ${inline}-byte model`);

  const vector = firstCase;
  const rescorer = await Rescorer.open(dir, [{ t: 0, prompt: vector.prompt, responseIds: vectors.response_ids }]);
  try {
    const result = await rescorer.rescore(vector.teachers[0]!.skill);
    assert.ok(worstDifference(result.steps[0]!.teacherLogp, vector.teachers[0]!.logp) <= LOGP_TOLERANCE, 'external data is the same model');
  } finally {
    await rescorer.close();
  }

  const megabytes = total / 1024 ** 2;
  assert.deepEqual(chooseScorer(dir, total, Math.ceil(megabytes), 'exports/x'), { path: 'onnxruntime-node', exportDir: dir });
  const above = chooseScorer(dir, total, megabytes / 2, 'exports/x');
  assert.equal(above.path, 'trainer');
  assert.match((above as { reason: string }).reason, /^exports\/x is [\d.]+ MB, above seedStudio\.whatIf\.maxOnnxSizeMB \([\d.]+ MB\)/);
  const none = chooseScorer(undefined, undefined, DEFAULT_MAX_ONNX_MB);
  assert.deepEqual(none, { path: 'trainer', reason: 'This run has no ONNX export to rescore with in the editor.' });
  assert.equal(formatBytes(2.4 * 1024 ** 3), '2.4 GB');
});

test('asked for CUDA where its provider libraries are missing, the scorer says why and runs on the CPU', async (t) => {
  const scorer = await OnnxScorer.open(path.join(EXPORT, 'model.onnx'), { preferCuda: true });
  try {
    if (scorer.provider === 'cuda') {
      t.skip('the CUDA execution provider loaded here: there is no fallback to see');
      console.log('skipped: onnxruntime-node loaded its CUDA execution provider on this machine');
      return;
    }
    assert.equal(scorer.provider, 'cpu');
    console.log(`fallback message: ${scorer.cudaFallback}`);
    assert.match(scorer.cudaFallback ?? '', /^the CUDA execution provider did not load \(.+\)$/);
    const logp = await scorer.responseLogprobs(firstCase.student.ids, vectors.response_ids, firstCase.temperature);
    assert.ok(worstDifference(logp, firstCase.student.logp) <= LOGP_TOLERANCE);
  } finally {
    await scorer.close();
  }
  const plain = await OnnxScorer.open(path.join(EXPORT, 'model.onnx'));
  assert.equal(plain.cudaFallback, undefined, 'not asked for CUDA: nothing to say');
  await plain.close();
});
