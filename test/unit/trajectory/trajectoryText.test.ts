// The text rendering of a trajectory (copy as text, text diff): its header and turns, indentation that keeps untrusted
// text from forming header lines, visible markers for bidi controls, folding by turn; and the inert-text helpers.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { RunReader, RunSchemas, findSchemasDir, type Trajectory } from '../../../src/runs/core';
import { formatNumber, formatPercent, formatScore, formatSigned } from '../../../src/trajectory/shared/format';
import { clip, displayText, isolatedText, needsMarkers } from '../../../src/common/shared/inertText';
import { renderTrajectoryText, turnFoldingRanges } from '../../../src/trajectory/core/textRender';
import { stepStats } from '../../../src/trajectory/shared/turnStats';
import { repoRoot } from '../support/repoPaths';

const runDir = path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid');
const reader = new RunReader(runDir, RunSchemas.load(findSchemasDir({ extensionRoot: repoRoot })));

test('rendering of a fixture trajectory: header, skill, turns with their summaries, actions', async () => {
  const trajectory = await reader.findTrajectory('it-000001-0001');
  const text = renderTrajectoryText(trajectory, { run: 'valid' });
  const lines = text.split('\n');
  assert.equal(lines[0], 'trajectory it-000001-0001');
  assert.equal(lines[1], 'run: valid');
  assert.equal(lines[2], 'task: household/heat-mug-3 · heat · train');
  assert.equal(lines[3], 'description: heat some mug and put it in the coffeemachine.');
  assert.match(lines[4]!, /^outcome: success · reward 1 · length 3 · phase train · update 1 · group 0 · sample 0 · advantage 0\.9000$/);
  assert.match(lines[5]!, /^gate: mean g \d\.\d{4} · g>0\.5 \d+\.\d% · mean Δ −?\d\.\d{4} · 73 tokens$/);
  assert.equal(lines[6], 'skill: self · valid');
  assert.equal(lines[7], '  text:');
  assert.equal(lines[8], `    ${trajectory.skill!.text}`);
  const stats = stepStats(trajectory.steps[0]!);
  const turn1 = lines.indexOf(`turn 1 · t=0 · valid · score 10 · advantage 0.9000 · tokens 23 · mean g ${formatNumber(stats.meanGate)} · g>0.5 ${formatPercent(stats.fracGateAboveHalf)}`);
  assert.ok(turn1 > 0, text);
  assert.equal(lines[turn1 + 1], '  observation:');
  assert.equal(lines[turn1 + 2], `    ${trajectory.steps[0]!.observation}`);
  assert.equal(lines[turn1 + 3], '  response:');
  assert.equal(lines[turn1 + 4], `    ${trajectory.steps[0]!.response}`);
  assert.equal(lines[turn1 + 5], '  action: go to countertop 1');
  assert.equal(lines.filter((l) => l.startsWith('turn ')).length, 3);
  assert.ok(text.endsWith('\n'));
});

test('the committed grammar sample is the rendering of the fixture (regenerate it when the format changes)', async () => {
  const trajectory = await reader.findTrajectory('it-000001-0002');
  const sample = readFileSync(path.join(repoRoot, 'test', 'fixtures', 'grammars', 'it-000001-0002.seedtraj'), 'utf8');
  assert.equal(renderTrajectoryText(trajectory, { run: 'valid' }), sample);
});

function hostile(): Trajectory {
  return {
    id: 'x\nturn 99 · injected',
    phase: 'eval',
    update: null,
    task: { id: 'task\u202Eevil', type: 'heat' },
    success: false,
    reward: 0,
    length: 2,
    skill: { text: null, valid: false, source: 'external', reason: 'no JSON\nat all' },
    steps: [
      { t: 0, observation: 'line one\nturn 2 · fake header\n\nfinal', response: 'r\u0007', action: null, valid: false },
      { t: 1, observation: 'ok', response: 'ok', action: 'look\naround', valid: true, truncated: true },
    ],
    final_observation: 'the end\r\nwith CRLF',
  };
}

test('untrusted text cannot start a header line, and bidi / control characters are shown as markers', () => {
  const text = renderTrajectoryText(hostile());
  const lines = text.split('\n');
  assert.deepEqual(lines.filter((l) => /^turn \d/.test(l)).map((l) => l.slice(0, 7)), ['turn 1 ', 'turn 2 ']);
  assert.equal(lines[0], 'trajectory x ⏎ turn 99 · injected');
  assert.equal(lines[1], 'task: task⟦U+202E⟧evil · heat');
  assert.ok(lines.includes('skill: external · invalid (no JSON ⏎ at all)'));
  assert.ok(lines.includes('    turn 2 · fake header'), 'content stays indented');
  assert.ok(lines.includes('    final'));
  assert.ok(lines.includes('    r\u2407'), 'BEL shown as a control picture');
  assert.ok(lines.includes('  action: (none: no well-formed <action>)'));
  assert.ok(lines.includes('  action: look ⏎ around'));
  assert.match(text, /turn 2 · t=1 · valid · truncated/);
  assert.ok(lines.includes('final'));
  assert.ok(lines.includes('    with CRLF'), 'CRLF becomes a newline');
  assert.ok(![...text].some((c) => /[\u202A-\u202E\u2066-\u2069\r]/.test(c) || c.charCodeAt(0) === 7));
  // No teacher arrays: no gate line.
  assert.ok(!lines.some((l) => l.startsWith('gate:')));
});

test('folding: one range per turn and for the final observation, from its header to its last content line', () => {
  const text = renderTrajectoryText(hostile());
  const lines = text.split('\n');
  const ranges = turnFoldingRanges(text);
  assert.equal(ranges.length, 3);
  for (const range of ranges) {
    assert.match(lines[range.start]!, /^(turn \d+|final$)/);
    assert.notEqual(lines[range.end]!.trim(), '');
    assert.ok(lines[range.end]!.startsWith('  '));
  }
  assert.equal(ranges[0]!.end, ranges[1]!.start - 2, 'a turn ends before the blank line');
  assert.equal(ranges[2]!.end, lines.length - 2);
});

test('long fields are cut with a note', () => {
  const trajectory = hostile();
  trajectory.steps[1]!.observation = 'A'.repeat(5000);
  const text = renderTrajectoryText(trajectory, { maxFieldChars: 1000 });
  assert.ok(text.includes(`    ${'A'.repeat(1000)}\n    … (4000 more characters not shown)`));
});

test('displayText: markers for bidi controls, invisibles and controls; lone surrogates become U+FFFD', () => {
  assert.equal(displayText('plain text — “quotes” … fine'), 'plain text — “quotes” … fine');
  assert.equal(needsMarkers('plain text — “quotes” … fine'), false);
  assert.equal(displayText('a\u202Eb\u2066c\u2069d\u200Fe'), 'a⟦U+202E⟧b⟦U+2066⟧c⟦U+2069⟧d⟦U+200F⟧e');
  assert.equal(displayText('zero\u200Bwidth\uFEFF'), 'zero⟦U+200B⟧width⟦U+FEFF⟧');
  assert.equal(displayText('tab\tnew\nline'), 'tab\tnew\nline');
  assert.equal(displayText('nul\u0000 esc\u001B del\u007F cr\r'), 'nul\u2400 esc\u241B del\u2421 cr\u240D');
  assert.equal(displayText('crlf\r\nnext'), 'crlf\nnext');
  assert.equal(displayText('lone \uD800 and \uDC80'), 'lone \uFFFD and \uFFFD');
  assert.equal(displayText('emoji 👩\u200D💻 ok'), 'emoji 👩\u200D💻 ok', 'ZWJ sequences and surrogate pairs stay');
});

test('clip keeps surrogate pairs whole and counts what it left out', () => {
  assert.deepEqual(clip('abc', 5), { text: 'abc', omitted: 0 });
  assert.deepEqual(clip('abcdef', 4), { text: 'abcd', omitted: 2 });
  assert.deepEqual(clip('ab😀cd', 3), { text: 'ab', omitted: 4 });
});

test('number formatting: real minus sign, fixed decimals, signed differences, percentages, scores', () => {
  assert.equal(formatNumber(-0.12345), '−0.1235');
  assert.equal(formatNumber(-0.00001), '0.0000');
  assert.equal(formatNumber(0.5, 1), '0.5');
  assert.equal(formatNumber(null), '—');
  assert.equal(formatNumber(Number.NaN), '—');
  assert.equal(formatSigned(0.25, 2), '+0.25');
  assert.equal(formatSigned(-0.25, 2), '−0.25');
  assert.equal(formatSigned(0, 2), '0.00');
  assert.equal(formatPercent(1 / 3), '33.3%');
  assert.equal(formatScore(10), '10');
  assert.equal(formatScore(-0.1), '−0.1');
  assert.equal(formatScore(9.9), '9.9');
});

test('a trajectory line with invalid UTF-8 is refused with a located error, not shown', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'seed-utf8-'));
  try {
    cpSync(runDir, dir, { recursive: true });
    const file = path.join(dir, 'trajectories', 'it-000001.jsonl');
    const bytes = readFileSync(file);
    const at = bytes.indexOf(Buffer.from('middle of a room'));
    bytes[at] = 0xff; // same length: the index's byte ranges stay right
    writeFileSync(file, bytes);
    const broken = new RunReader(dir, RunSchemas.load(findSchemasDir({ extensionRoot: repoRoot })));
    await assert.rejects(broken.findTrajectory('it-000001-0001'), (error: Error & { kind?: string; file?: string; line?: number }) => {
      assert.equal(error.kind, 'invalid_json');
      assert.equal(error.file, 'trajectories/it-000001.jsonl');
      assert.equal(error.line, 1);
      assert.match(error.message, /not UTF-8/);
      return true;
    });
    assert.equal((await broken.findTrajectory('it-000001-0002')).id, 'it-000001-0002', 'the other lines still read');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('isolatedText: a run name cannot reorder its neighbours (FSI … PDI around it, its own overrides shown)', () => {
  assert.equal(isolatedText('run-a'), '\u2068run-a\u2069');
  const hostile = isolatedText('evil\u202Eeman');
  assert.equal(hostile, '\u2068evil\u27E6U+202E\u27E7eman\u2069');
  // An isolate in the name cannot close the one around it early.
  assert.equal(isolatedText('x\u2069y'), '\u2068x\u27E6U+2069\u27E7y\u2069');
});
