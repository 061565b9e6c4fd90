// The rows of the trajectory table for one batch of a run: the index rows of its task groups, each with its
// token-weighted mean gate read once from the batch's trajectory files (the index does not hold it). No `vscode`.
import path from 'node:path';
import type { RunEntry } from '../../runs/core/runsCore';
import { tableRow, type TableRow } from '../shared/trajectoryTable';
import { trajectoryStats } from '../../trajectory/shared/turnStats';

export async function batchRows(entry: RunEntry, batchKey: string): Promise<{ batch: string; rows: TableRow[] }> {
  const batch = entry.index.batches.get(batchKey);
  if (!batch) throw new Error(`run ${path.basename(entry.dir)} has no batch ${batchKey}`);
  const indexRows = [...batch.groups.values()].flatMap((group) => group.rows);
  const gates = new Map<string, number | null>();
  for (const file of new Set(indexRows.filter((row) => row.teacher).map((row) => row.file))) {
    for (const record of (await entry.index.reader.readTrajectoryFile(file)).records) gates.set(record.value.id, trajectoryStats(record.value).total.meanGate);
  }
  return { batch: batch.label, rows: indexRows.map((row) => tableRow(row, gates.get(row.id) ?? null)) };
}
