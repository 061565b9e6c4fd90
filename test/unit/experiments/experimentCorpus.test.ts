// The shared corpus of experiment files (test/fixtures/experiments/): the editor's verdict on each is the one in
// expectations.json, which the trainer's test (trainer/tests/experiment/test_experiment_corpus.py) checks too; and the trainer's
// `validate --json` gives, file by file, the same first problem at the same place.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ExperimentSchema, type ExperimentProblem, type JsonSchema } from '../../../src/experiments/core/experimentSchema';
import { EXPERIMENT_LIMITS, firstBadUtf8Byte } from '../../../src/experiments/core/experimentText';
import { repoRoot, trainerPython } from '../support/repoPaths';

const corpus = path.join(repoRoot, 'test', 'fixtures', 'experiments');

interface Expected {
  valid: boolean;
  why: string;
  line?: number | null;
  column?: number | null;
  field?: string;
  message_includes?: string;
}

const expected = (JSON.parse(readFileSync(path.join(corpus, 'expectations.json'), 'utf8')) as { files: Record<string, Expected> }).files;
const schema = new ExperimentSchema(JSON.parse(readFileSync(path.join(repoRoot, 'schemas', 'experiment.schema.json'), 'utf8')) as JsonSchema);
const problemsOf = (name: string): ExperimentProblem[] => schema.validateBytes(readFileSync(path.join(corpus, name)));

describe('experiment corpus (editor side)', () => {
  test('every corpus file has an expectation', () => {
    assert.deepEqual(readdirSync(corpus).filter((f) => f.endsWith('.seed.yaml')).sort(), Object.keys(expected).sort());
  });

  for (const [name, want] of Object.entries(expected)) {
    test(`${name}: ${want.valid ? 'valid' : 'invalid'}${want.why ? ` (${want.why})` : ''}`, () => {
      const problems = problemsOf(name);
      if (want.valid) {
        assert.deepEqual(problems.map((p) => p.message), []);
        return;
      }
      const first = problems[0];
      assert.ok(first, `${name} was accepted`);
      if (want.line !== null && want.line !== undefined) {
        assert.deepEqual([first.range.start.line + 1, first.range.start.character + 1], [want.line, want.column], first.message);
      }
      assert.equal(first.field, want.field, first.message);
      assert.ok(first.message.includes(want.message_includes ?? ''), `${first.message} lacks ${want.message_includes}`);
    });
  }

  test('the size limit comes before everything else; a file just under it is read', () => {
    const over = Buffer.concat([Buffer.from('name: x\n#'), Buffer.alloc(EXPERIMENT_LIMITS.maxBytes, 0xff)]);
    const [problem, ...rest] = schema.validateBytes(over);
    assert.equal(rest.length, 0);
    assert.match(problem?.message ?? '', /limited to 1048576 bytes/);
    const under = Buffer.concat([Buffer.from('name: x\nmodel: {path: m}\n#'), Buffer.alloc(EXPERIMENT_LIMITS.maxBytes - 30, 0x78)]);
    assert.deepEqual(schema.validateBytes(under), []);
  });

  test('the UTF-8 check finds the byte Python stops at', () => {
    const cases: [number[], number][] = [
      [[0x61, 0xc3, 0xa9], -1],
      [[0x61, 0xc0, 0xaf], 1], // overlong
      [[0xed, 0xa0, 0x80], 0], // a UTF-16 surrogate
      [[0x61, 0x62, 0xe2, 0x82], 2], // truncated
      [[0xf4, 0x90, 0x80, 0x80], 0], // beyond U+10FFFF
      [[0xf0, 0x9f, 0x98, 0x80, 0x80], 4], // a stray continuation byte
    ];
    for (const [bytes, bad] of cases) assert.equal(firstBadUtf8Byte(Uint8Array.from(bytes)), bad, JSON.stringify(bytes));
  });

  test("the trainer's `validate --json` gives each file the same first problem at the same place", () => {
    const names = Object.keys(expected).sort();
    const run = spawnSync(trainerPython(), ['-m', 'seed_trainer', 'validate', '--json', ...names.map((n) => path.join(corpus, n))], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(run.status, 2, run.stderr);
    const rows = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { file: string; valid: boolean; problems: ExperimentProblem[] });
    assert.equal(rows.length, names.length);
    for (const row of rows) {
      const name = path.basename(row.file);
      const mine = problemsOf(name);
      assert.equal(row.valid, mine.length === 0, name);
      if (row.problems[0]?.source === 'yaml' && mine[0]?.source === 'yaml' && expected[name]?.line === null) continue; // parsers word syntax errors their own way
      assert.deepEqual(
        row.problems.map((p) => [p.range.start, p.field, p.message]),
        mine.map((p) => [p.range.start, p.field, p.message]),
        name,
      );
    }
  });
});
