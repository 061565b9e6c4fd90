// Aligning two trajectories of the same task turn by turn: a longest common subsequence over the actions, so one
// inserted or removed step shifts the rest instead of making every later pair differ. Then: rows for display (runs of
// removed and inserted turns side by side become "changed" rows), the first divergence, and per-turn deltas.
// No vscode, no Node APIs (the diff webview runs it).
import type { TrajectoryStep } from '../../runs/shared/types';
import type { TurnStats } from '../../trajectory/shared/turnStats';

export type AlignOp = { kind: 'same'; a: number; b: number } | { kind: 'removed'; a: number } | { kind: 'inserted'; b: number };

/**
 * An LCS alignment of `a` and `b` by key: every element appears exactly once, in order; `same` pairs have equal keys.
 * Ties prefer listing removals before insertions. O(n·m) time and memory after trimming the common prefix and suffix.
 */
export function lcsAlign<T>(a: readonly T[], b: readonly T[], key: (item: T) => string): AlignOp[] {
  const ka = a.map(key);
  const kb = b.map(key);
  let prefix = 0;
  while (prefix < ka.length && prefix < kb.length && ka[prefix] === kb[prefix]) prefix += 1;
  let suffix = 0;
  while (suffix < ka.length - prefix && suffix < kb.length - prefix && ka[ka.length - 1 - suffix] === kb[kb.length - 1 - suffix]) suffix += 1;

  const ops: AlignOp[] = [];
  for (let i = 0; i < prefix; i += 1) ops.push({ kind: 'same', a: i, b: i });

  const n = ka.length - prefix - suffix;
  const m = kb.length - prefix - suffix;
  // table[i][j] = LCS length of a[prefix+i..] and b[prefix+j..] (the middle part), row-major (m+1) wide.
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      table[i * width + j] =
        ka[prefix + i] === kb[prefix + j]
          ? table[(i + 1) * width + j + 1]! + 1
          : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && ka[prefix + i] === kb[prefix + j]) {
      ops.push({ kind: 'same', a: prefix + i, b: prefix + j });
      i += 1;
      j += 1;
    } else if (i < n && (j >= m || table[(i + 1) * width + j]! >= table[i * width + j + 1]!)) {
      ops.push({ kind: 'removed', a: prefix + i });
      i += 1;
    } else {
      ops.push({ kind: 'inserted', b: prefix + j });
      j += 1;
    }
  }
  for (let s = 0; s < suffix; s += 1) ops.push({ kind: 'same', a: ka.length - suffix + s, b: kb.length - suffix + s });
  return ops;
}

/** The alignment key of a step: its action, trimmed, lower-cased, whitespace collapsed; all invalid steps share one. */
export function actionKey(step: Pick<TrajectoryStep, 'action'>): string {
  if (step.action === null || step.action === undefined) return '\u0000invalid';
  return step.action.trim().replace(/\s+/g, ' ').toLowerCase();
}

type DiffRowKind = 'same' | 'changed' | 'removed' | 'inserted';

export interface DiffRow {
  kind: DiffRowKind;
  /** Turn index in trajectory A (absent for an inserted turn). */
  a?: number;
  /** Turn index in trajectory B (absent for a removed turn). */
  b?: number;
}

/** Display rows: each run of removed turns followed by inserted ones (or the reverse) is paired up as changed rows. */
export function diffRows(ops: readonly AlignOp[]): DiffRow[] {
  const rows: DiffRow[] = [];
  let k = 0;
  while (k < ops.length) {
    const op = ops[k]!;
    if (op.kind === 'same') {
      rows.push({ kind: 'same', a: op.a, b: op.b });
      k += 1;
      continue;
    }
    const removed: number[] = [];
    const inserted: number[] = [];
    while (k < ops.length && ops[k]!.kind !== 'same') {
      const next = ops[k]!;
      if (next.kind === 'removed') removed.push(next.a);
      else if (next.kind === 'inserted') inserted.push(next.b);
      k += 1;
    }
    const paired = Math.min(removed.length, inserted.length);
    for (let p = 0; p < paired; p += 1) rows.push({ kind: 'changed', a: removed[p]!, b: inserted[p]! });
    for (const a of removed.slice(paired)) rows.push({ kind: 'removed', a });
    for (const b of inserted.slice(paired)) rows.push({ kind: 'inserted', b });
  }
  return rows;
}

/** Index of the first row that is not `same`, or −1 when the actions agree all the way. */
export function firstDivergence(rows: readonly DiffRow[]): number {
  return rows.findIndex((row) => row.kind !== 'same');
}

export interface TurnDelta {
  /** B − A of the step score (the scaled reward minus penalties the advantage came from). */
  score: number | null;
  envReward: number | null;
  advantage: number | null;
  meanGate: number | null;
  fracGateAboveHalf: number | null;
}

function difference(a: number | null | undefined, b: number | null | undefined): number | null {
  return typeof a === 'number' && typeof b === 'number' ? b - a : null;
}

function turnDelta(a: TrajectoryStep, b: TrajectoryStep, statsA: TurnStats, statsB: TurnStats): TurnDelta {
  return {
    score: difference(a.score, b.score),
    envReward: difference(a.env_reward, b.env_reward),
    advantage: difference(a.advantage, b.advantage),
    meanGate: difference(statsA.meanGate, statsB.meanGate),
    fracGateAboveHalf: difference(statsA.fracGateAboveHalf, statsB.fracGateAboveHalf),
  };
}

export interface TrajectoryDiff {
  rows: DiffRow[];
  /** Row index of the first divergence, −1 when none. */
  firstDivergence: number;
  counts: Record<DiffRowKind, number>;
  /** One per row: B − A where the row has both turns, else null. */
  deltas: (TurnDelta | null)[];
}

export function diffTrajectories(
  a: { steps: readonly TrajectoryStep[] },
  b: { steps: readonly TrajectoryStep[] },
  statsA: readonly TurnStats[],
  statsB: readonly TurnStats[],
): TrajectoryDiff {
  const rows = diffRows(lcsAlign(a.steps, b.steps, actionKey));
  const counts: Record<DiffRowKind, number> = { same: 0, changed: 0, removed: 0, inserted: 0 };
  for (const row of rows) counts[row.kind] += 1;
  const deltas = rows.map((row) =>
    row.a !== undefined && row.b !== undefined ? turnDelta(a.steps[row.a]!, b.steps[row.b]!, statsA[row.a]!, statsB[row.b]!) : null,
  );
  return { rows, firstDivergence: firstDivergence(rows), counts, deltas };
}

/** The per-episode part of the deltas: the most common B − A of the step score and of the advantage over the rows
 * with both turns. In a GRPO-family run the advantage is one number per trajectory and the score differs only where
 * one side's action was malformed, so this is the episode's difference, said once; a row shows its own only where it
 * differs (`ownDelta`). */
export function episodeDeltas(deltas: readonly (TurnDelta | null)[]): { score: number | null; advantage: number | null } {
  const mode = (values: number[]): number | null => {
    const counts = new Map<number, number>();
    for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
    let best: number | null = null;
    let most = 0;
    for (const [v, n] of counts) if (n > most) [best, most] = [v, n];
    return best;
  };
  const of = (key: 'score' | 'advantage') => mode(deltas.flatMap((d) => (d && d[key] !== null ? [roundDelta(d[key]!)] : [])));
  return { score: of('score'), advantage: of('advantage') };
}

/** A row's delta when it is not the episode's (see episodeDeltas), else null. */
export function ownDelta(value: number | null, episode: number | null): number | null {
  return value === null || (episode !== null && roundDelta(value) === episode) ? null : value;
}

/** A delta at the precision the view shows (1e-6 here): float noise is not a difference. */
function roundDelta(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

