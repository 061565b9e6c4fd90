// What a run's OPD estimator (run.json config `opd.estimator`, docs/trainer.md "OPD estimator") subtracted from the
// gate g of each sampled token, and how the viewer names it. The update weighs the sampled token by g (`sample`, the
// paper's), g − ½ (`centred`) or g − b(s) with b(s) = Σ_v π_old(v|s)·g(v) (`baseline`); `expected` weighs every
// vocabulary token instead, and at ratio 1 its push on the sampled token's logit is π_old(y|s)·(g − b(s)), so g − b
// gives that push's direction. No vscode, no DOM: the webviews and the unit tests import it.
import { GATE_CENTRE } from './gate';
import type { TokenArrays } from './tokenArrays';
import type { OpdConfig, RecordedExperiment } from './types';

/** The experiment schema's `opd.estimator` values. */
export type OpdEstimator = NonNullable<OpdConfig['estimator']>;

/**
 * What each estimator subtracts from g: nothing, the centre ½ or b(s), in the trainer's order. A copy of the
 * trainer's table (trainer/seed_trainer/algo/estimator_table.py), which the experiment schema carries as
 * `x-estimators` on `opd.estimator`: the Record type makes the compiler refuse a schema value missing here or an extra
 * one, and test/unit/runs/opdEstimator.test.ts compares the order and the rest.
 */
export const OPD_ESTIMATORS: Readonly<Record<OpdEstimator, 'nothing' | 'centre' | 'baseline'>> = {
  sample: 'nothing',
  centred: 'centre',
  baseline: 'baseline',
  expected: 'baseline',
};

function isOpdEstimator(value: unknown): value is OpdEstimator {
  return typeof value === 'string' && Object.hasOwn(OPD_ESTIMATORS, value);
}

/**
 * The estimator of a run from its resolved config (run.json `config`): `opd.estimator`, `sample` when the config has
 * none (the trainer's default, and every run written before the setting existed); undefined for a value this reader
 * does not know (a run of a trainer older or newer than the schema).
 */
export function opdEstimatorOf(config: RecordedExperiment): OpdEstimator | undefined {
  const value: unknown = config.opd?.estimator;
  if (value === undefined) return 'sample';
  return isOpdEstimator(value) ? value : undefined;
}

/** Whether the estimator's update subtracts something from g (the trajectory records carry it as gate_baseline). */
export function subtractsBaseline(estimator: OpdEstimator | undefined): boolean {
  return estimator !== undefined && OPD_ESTIMATORS[estimator] !== 'nothing';
}

/**
 * Fills `gateBaseline` with ½ where the step of a run whose estimator subtracts the centre (`centred`) has a gate but
 * no recorded baseline (its value is fixed by the estimator); b(s) cannot be rebuilt from the record, so nothing else
 * is filled.
 */
export function withCentredBaseline(arrays: TokenArrays | undefined, estimator: OpdEstimator | undefined): TokenArrays | undefined {
  if (!arrays?.gate || arrays.gateBaseline || estimator === undefined || OPD_ESTIMATORS[estimator] !== 'centre') return arrays;
  return { ...arrays, gateBaseline: new Float32Array(arrays.count).fill(GATE_CENTRE) }; // what `centred` subtracts
}

const weights = new WeakMap<TokenArrays, Float32Array>();

/** g − b per token (cached per decoded step), or undefined when the step recorded no gate or no baseline. */
export function gateMinusBaseline(arrays: TokenArrays): Float32Array | undefined {
  const { gate, gateBaseline } = arrays;
  if (!gate || !gateBaseline) return undefined;
  let out = weights.get(arrays);
  if (!out) {
    out = new Float32Array(gate.length);
    for (let i = 0; i < gate.length; i += 1) out[i] = gate[i]! - gateBaseline[i]!;
    weights.set(arrays, out);
  }
  return out;
}

export interface BaselineWording {
  /** The mode button label of g − b: `g − ½` or `g − b(s)`. */
  weight: string;
  /** The hover-card label of g − b, which says what it is to the update (its sign, where the vocabulary is weighed). */
  weightRow: string;
  /** The hover-card label of b. */
  baseline: string;
  /** The legend title of the g − b scale (the note under it names the estimator). */
  title: string;
  lowMeaning: string;
  highMeaning: string;
  /** One sentence under the legend: what the update did with g − b under this estimator. */
  note: string;
}

/** How the viewer names b and g − b for a run's estimator (undefined: a baseline recorded by an unknown estimator). */
export function baselineWording(estimator: OpdEstimator | undefined): BaselineWording {
  const push = { lowMeaning: 'the update pushed the sampled token down', highMeaning: 'pushed it up' };
  switch (estimator) {
    case 'centred':
      return {
        ...push,
        weight: 'g − ½',
        weightRow: 'g − ½ (update weight)',
        baseline: 'b = ½',
        title: 'update weight g − ½',
        note: 'opd.estimator: centred — the update weighed each sampled token by g − ½ (not g): a gate of ½ gives no push.',
      };
    case 'baseline':
      return {
        ...push,
        weight: 'g − b(s)',
        weightRow: 'g − b(s) (update weight)',
        baseline: 'b(s)',
        title: 'update weight g − b(s)',
        note: 'opd.estimator: baseline — the update weighed each sampled token by g − b(s), b(s) = Σ_v π_old(v|s)·g(v), the gate the policy expected at that position.',
      };
    case 'expected':
      return {
        weight: 'g − b(s)',
        weightRow: 'g − b(s) (update weight: its sign)',
        baseline: 'b(s)',
        title: 'g − b(s): direction of the push',
        lowMeaning: "the update lowered the sampled token's logit",
        highMeaning: 'raised it',
        note: "opd.estimator: expected — the update weighed every vocabulary token v by π_old(v|s)·g(v), not only the sampled one; on the sampled token's logit that is π_old(y|s)·(g − b(s)) at ratio 1, so the colour is the push's direction (its size is scaled by π_old(y|s)).",
      };
    default:
      return {
        ...push,
        weight: 'g − b',
        weightRow: 'g − b (update weight)',
        baseline: 'b',
        title: 'update weight g − b',
        note: `b is the gate_baseline the trainer recorded; this run's opd.estimator (${estimator ?? 'unknown'}) does not say how it was computed.`,
      };
  }
}
