// A fixture run copied into a UI test's workspace with some trajectory records edited. The trajectory files are
// rewritten and the index follows them as the trainer keeps it (byte ranges, success, reward, length, token count),
// so the extension reads the copy as it would a run the trainer wrote.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodeTokenArrays } from '../../src/runs/core';
import type { EncodedTokens } from '../../src/runs/shared/types';

export type Json = Record<string, unknown>;
/** A trajectory record as the test edits it: its steps typed enough to reach their fields. */
export type TrajectoryJson = Json & { steps: Array<Json & { tokens?: EncodedTokens }> };

const jsonLines = (file: string): Json[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Json);

/**
 * Copies the run `from` to `to`, merges `manifest` into its run.json, and applies `edits` (trajectory id → an edit
 * of its record, in place) to its trajectory files, then rewrites the index rows of the files it touched.
 */
export function copyRunWithEdits(from: string, to: string, manifest: Json, edits: Record<string, (record: TrajectoryJson) => void>): void {
  cpSync(from, to, { recursive: true });
  const runFile = path.join(to, 'run.json');
  writeFileSync(runFile, JSON.stringify({ ...(JSON.parse(readFileSync(runFile, 'utf8')) as Json), ...manifest }, null, 2));
  const indexFile = path.join(to, 'trajectories', 'index.jsonl');
  const index = jsonLines(indexFile);
  const rewritten = new Map<string, Json>();
  for (const file of new Set(index.filter((row) => typeof row.id === 'string' && row.id in edits).map((row) => row.file as string))) {
    const records = jsonLines(path.join(to, 'trajectories', file)) as TrajectoryJson[];
    let offset = 0;
    const lines = records.map((record, line) => {
      edits[record.id as string]?.(record);
      const text = `${JSON.stringify(record)}\n`;
      const size = Buffer.byteLength(text);
      const tokens = record.steps.reduce((sum, step) => sum + (step.tokens ? decodeTokenArrays(step.tokens).count : 0), 0);
      rewritten.set(record.id as string, { offset, size, line: line + 1, success: record.success, reward: record.reward, length: record.steps.length, tokens });
      offset += size;
      return text;
    });
    writeFileSync(path.join(to, 'trajectories', file), lines.join(''));
  }
  writeFileSync(indexFile, index.map((row) => `${JSON.stringify({ ...row, ...rewritten.get(row.id as string) })}\n`).join(''));
}
