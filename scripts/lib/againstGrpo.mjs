/**
 * The demo summary's lines on SEED against GRPO, read from the committed learning benchmark
 * (bench/results/learning.json, written by bench/learning/learning.py). The demo itself only compares the trained policy
 * with its own starting point; whether SEED beats GRPO on this default is the benchmark's answer, so the summary
 * repeats it, resolved or not.
 */

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SPLITS = ['valid_seen', 'valid_unseen'];

/** The starting policy's identity as bench/learning/learning.py records it (`settings.weights`): the first 16 hex digits of
 * the SHA-256 over the folder's *.safetensors files in name order. */
export function weightsFingerprint(modelDir) {
  const digest = createHash('sha256');
  for (const name of readdirSync(modelDir).filter((n) => n.endsWith('.safetensors')).sort()) {
    digest.update(readFileSync(path.join(modelDir, name)));
  }
  return digest.digest('hex').slice(0, 16);
}

const pct = (x) => `${(100 * x).toFixed(0)} %`;
/** A difference of proportions in signed percentage points: +7, -5. */
export const points = (x) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(0)}`;

/** One split's line and whether SEED is ahead beyond its interval; null when the report lacks that split. */
function splitLine(split, summary) {
  const seed = summary?.seed?.[split];
  const grpo = summary?.grpo?.[split];
  const against = seed?.against_grpo;
  if (!against || !grpo) return null;
  const hasInterval = (x) => x && typeof x.lo === 'number' && typeof x.hi === 'number';
  // Paired by seed where two or more seeds have both (a seed fixes the evaluation tasks, so pairing takes out how
  // hard each seed's tasks are); else across seeds (Welch) when both sides have two or more; else the pooled
  // episodes, which leave out seed-to-seed variation.
  const paired = hasInterval(against.paired_seeds) && Array.isArray(against.paired_seeds.seeds) ? against.paired_seeds : null;
  const seeds = hasInterval(against.across_seeds) ? against.across_seeds : null;
  const { d, lo, hi } = paired ?? seeds ?? against.pooled_episodes ?? {};
  if (![d, lo, hi].every((v) => typeof v === 'number' && Number.isFinite(v))) return null;
  const basis = paired
    ? `paired over the ${paired.seeds.length} seeds both completed (the same evaluation tasks per seed)`
    : seeds
      ? `across seeds (${seeds.seeds[0]} SEED, ${seeds.seeds[1]} GRPO)`
      : 'over the pooled episodes (fewer than two seeds a side: seed-to-seed variation not included)';
  // With one training seed a side the interval holds the evaluation's noise only; two runs of one algorithm differ
  // by several points from the training seed alone, so a difference beyond it is not yet one between algorithms.
  const side = lo > 0 ? 'ahead' : hi < 0 ? 'behind' : null;
  const overSeeds = Boolean(paired || seeds);
  const outcome = !side
    ? 'not resolved'
    : overSeeds
      ? `SEED ${side}, beyond its interval`
      : `SEED ${side} over these episodes, but one training seed a side cannot tell that from seed-to-seed variation: not resolved`;
  const means = `SEED ${pct(seed.final_across_seeds.mean)}, GRPO ${pct(grpo.final_across_seeds.mean)}`;
  return {
    line: `  ${split}: ${means}: ${points(d)} points, 95 % interval [${points(lo)}, ${points(hi)}] ${basis} — ${outcome}.`,
    ahead: side === 'ahead' && overSeeds,
    split,
  };
}

/** The summary lines for `report` (the parsed learning.json, or undefined when it could not be read). `weights`:
 * the fingerprint of the policy the demo starts from, so a report made from other weights says so. */
export function againstGrpoLines(report, file = 'bench/results/learning.json', weights = undefined) {
  const rows = SPLITS.map((split) => splitLine(split, report?.summary)).filter(Boolean);
  if (!rows.length) return [`SEED against GRPO: ${file} holds no completed SEED and GRPO runs to compare.`];
  const updates = report.settings?.updates;
  const made = report.settings?.weights;
  const otherPolicy = typeof made === 'string' && typeof weights === 'string' && made !== weights;
  const lines = [otherPolicy
    ? `SEED against GRPO from an earlier tiny policy (the committed learning benchmark, ${file}, was made from ` +
      `weights ${made}; this demo starts from ${weights}, whose benchmark has not been run yet` +
      `${updates ? `; ${updates} updates per run` : ''}):`
    : `SEED against GRPO on this default (the committed learning benchmark, ${file}` +
      `${updates ? `: ${updates} updates per run` : ''}):`];
  lines.push(...rows.map((r) => r.line));
  const ahead = rows.filter((r) => r.ahead).map((r) => r.split);
  lines.push(ahead.length
    ? `  The benchmark shows SEED ahead of GRPO on ${ahead.join(' and ')}.`
    : '  The benchmark does not show SEED ahead of GRPO: the change above is against the base policy, not against GRPO.');
  return lines;
}
