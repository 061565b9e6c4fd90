// "Next strongest disagreement": the tokens of a trajectory ordered by how strongly the hindsight teacher and the
// student disagree, |Δ| = |ℓ^skill − ℓ^θ| (the gate's distance from 0.5 orders them the same way, g = σ(β·Δ)).
// The viewer walks this list with a key. No DOM, no `vscode`.

export interface TokenRef {
  turn: number;
  token: number;
  delta: number;
}

/** Every token with a finite Δ, strongest |Δ| first (ties in reading order); at most `limit`. */
export function strongestDisagreements(turns: ReadonlyArray<ArrayLike<number> | undefined>, limit = 10_000): TokenRef[] {
  const found: TokenRef[] = [];
  turns.forEach((deltas, turn) => {
    if (!deltas) return;
    for (let token = 0; token < deltas.length; token += 1) {
      const delta = deltas[token] ?? Number.NaN;
      if (Number.isFinite(delta) && delta !== 0) found.push({ turn, token, delta });
    }
  });
  found.sort((a, b) => Math.abs(b.delta) - Math.abs(a.delta) || a.turn - b.turn || a.token - b.token);
  return found.slice(0, limit);
}
