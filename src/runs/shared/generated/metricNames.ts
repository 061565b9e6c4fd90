// Generated from schemas/metric.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.

/** The keywords the metric schema adds to JSON Schema, which a strict validator must be told of. */
export const METRIC_SCHEMA_KEYWORDS = ['x-units', 'x-unit', 'x-chart', 'x-label', 'x-family'] as const;

/** A unit of metric values: `symbol` is what a chart title shows of it (empty: nothing). */
export interface MetricUnit {
  symbol: string;
  description: string;
}

/** The units (the schema's `x-units`). */
export const METRIC_UNITS = {
  fraction: { symbol: '', description: 'A share in [0, 1] (a chart of fractions has its y axis fixed to [0, 1]).' },
  steps: { symbol: 'steps', description: 'Environment steps (one action each).' },
  tokens: { symbol: 'tokens', description: 'Tokens of the policy\'s tokenizer.' },
  nats: { symbol: 'nats', description: 'A difference of natural-log probabilities.' },
  'nats/token': { symbol: 'nats/token', description: 'A token-mean of natural-log probabilities (a loss, a KL or an entropy per token).' },
  loss: { symbol: '', description: 'A loss without a unit of its own (the PPO surrogate, or a sum of terms of several units).' },
  score: { symbol: '', description: 'The environment\'s own reward or score scale.' },
  count: { symbol: '', description: 'A number of things counted (episodes, requests, optimizer steps, tokens summarized).' },
  lr: { symbol: '', description: 'A learning rate: the optimizer\'s step size.' },
  norm: { symbol: 'L2', description: 'An L2 norm.' },
  seconds: { symbol: 's', description: 'Wall-clock seconds.' },
} as const satisfies Record<string, MetricUnit>;

export type MetricUnitName = keyof typeof METRIC_UNITS;

/** A metric name the trainer writes, or wrote (`deprecated`), or a family of them (`pattern`). */
export interface MetricName {
  /** The name (`loss/pg`); for a family, what its names look like (`success/<task_type>`). */
  name: string;
  /** A family's names: a regular expression. */
  pattern?: string;
  unit: MetricUnitName;
  /** The dashboard chart that draws it (an id of src/dashboard/shared/charts.ts), or false: none. */
  chart: string | false;
  /** The legend text, when not the part of the name after its `/`. */
  label?: string;
  /** No longer written: known so that older runs still read. */
  deprecated?: true;
}

/** A name the schema lists (not a family's): what a hand-picked list of metrics is typed as. */
export type ListedMetricName =
  | 'success/overall'
  | 'episode/length'
  | 'episode/valid_action_ratio'
  | 'episode/admissible_action_ratio'
  | 'episode/response_tokens'
  | 'episode/task_score'
  | 'episode/environment_failures'
  | 'loss/total'
  | 'loss/pg'
  | 'loss/kl'
  | 'loss/entropy'
  | 'loss/opd'
  | 'loss/sft'
  | 'loss/sft_val'
  | 'ppo/clip_frac'
  | 'ppo/clip_frac_lower'
  | 'ppo/approx_kl'
  | 'ppo/grad_norm'
  | 'gate/mean'
  | 'gate/frac_gt_half'
  | 'gate/min'
  | 'gate/p05'
  | 'gate/p25'
  | 'gate/p50'
  | 'gate/p75'
  | 'gate/p95'
  | 'gate/max'
  | 'gate/count'
  | 'delta/mean'
  | 'delta/min'
  | 'delta/p05'
  | 'delta/p25'
  | 'delta/p50'
  | 'delta/p75'
  | 'delta/p95'
  | 'delta/max'
  | 'delta/count'
  | 'opd/active_ratio'
  | 'opd/gate_baseline_mean'
  | 'opd/tail_mass'
  | 'rollout/logprob_diff_max'
  | 'rollout/logprob_diff_mean'
  | 'skill/parse_rate'
  | 'skill/summary_names_task'
  | 'skill/names_task_target'
  | 'analyzer/retries'
  | 'tokens/total'
  | 'optim/lr'
  | 'optim/grad_norm'
  | 'optim/skipped_steps'
  | 'time/rollout'
  | 'time/logprobs'
  | 'time/analysis'
  | 'time/teacher'
  | 'time/update'
  | 'time/total'
  | 'time/step'
  | 'time/eval';

/** Every metric name of schemas/metric.schema.json, in its order; families last. */
export const METRIC_NAMES: readonly MetricName[] = [
  { name: 'success/overall', unit: 'fraction', chart: 'success' },
  { name: 'episode/length', unit: 'steps', chart: 'length' },
  { name: 'episode/valid_action_ratio', unit: 'fraction', chart: false },
  { name: 'episode/admissible_action_ratio', unit: 'fraction', chart: false },
  { name: 'episode/response_tokens', unit: 'tokens', chart: false },
  { name: 'episode/task_score', unit: 'score', chart: false },
  { name: 'episode/environment_failures', unit: 'count', chart: false },
  { name: 'loss/total', unit: 'loss', chart: false },
  { name: 'loss/pg', unit: 'loss', chart: 'pg' },
  { name: 'loss/kl', unit: 'nats/token', chart: 'kl' },
  { name: 'loss/entropy', unit: 'nats/token', chart: 'entropy' },
  { name: 'loss/opd', unit: 'nats/token', chart: 'opd' },
  { name: 'loss/sft', unit: 'nats/token', chart: 'sft' },
  { name: 'loss/sft_val', unit: 'nats/token', chart: 'sft' },
  { name: 'ppo/clip_frac', unit: 'fraction', chart: false },
  { name: 'ppo/clip_frac_lower', unit: 'fraction', chart: false },
  { name: 'ppo/approx_kl', unit: 'nats/token', chart: false },
  { name: 'ppo/grad_norm', unit: 'norm', chart: 'optim-grad-norm', label: 'grad norm (ppo/grad_norm)', deprecated: true },
  { name: 'gate/mean', unit: 'fraction', chart: 'gate', label: 'mean g' },
  { name: 'gate/frac_gt_half', unit: 'fraction', chart: 'gate-half' },
  { name: 'gate/min', unit: 'fraction', chart: 'gate-quantiles' },
  { name: 'gate/p05', unit: 'fraction', chart: 'gate-quantiles' },
  { name: 'gate/p25', unit: 'fraction', chart: 'gate-quantiles' },
  { name: 'gate/p50', unit: 'fraction', chart: 'gate-quantiles' },
  { name: 'gate/p75', unit: 'fraction', chart: 'gate-quantiles' },
  { name: 'gate/p95', unit: 'fraction', chart: 'gate-quantiles' },
  { name: 'gate/max', unit: 'fraction', chart: 'gate-quantiles' },
  { name: 'gate/count', unit: 'count', chart: false },
  { name: 'delta/mean', unit: 'nats', chart: 'delta' },
  { name: 'delta/min', unit: 'nats', chart: 'delta-quantiles' },
  { name: 'delta/p05', unit: 'nats', chart: 'delta-quantiles' },
  { name: 'delta/p25', unit: 'nats', chart: 'delta-quantiles' },
  { name: 'delta/p50', unit: 'nats', chart: 'delta-quantiles' },
  { name: 'delta/p75', unit: 'nats', chart: 'delta-quantiles' },
  { name: 'delta/p95', unit: 'nats', chart: 'delta-quantiles' },
  { name: 'delta/max', unit: 'nats', chart: 'delta-quantiles' },
  { name: 'delta/count', unit: 'count', chart: false },
  { name: 'opd/active_ratio', unit: 'fraction', chart: false },
  { name: 'opd/gate_baseline_mean', unit: 'fraction', chart: 'gate', label: 'mean b (subtracted from g)' },
  { name: 'opd/tail_mass', unit: 'fraction', chart: false },
  { name: 'rollout/logprob_diff_max', unit: 'nats', chart: false },
  { name: 'rollout/logprob_diff_mean', unit: 'nats', chart: false },
  { name: 'skill/parse_rate', unit: 'fraction', chart: 'parse' },
  { name: 'skill/summary_names_task', unit: 'fraction', chart: 'skill-relevance', label: 'summary names the task' },
  { name: 'skill/names_task_target', unit: 'fraction', chart: 'skill-relevance', label: 'skill names the task\'s object or receptacle' },
  { name: 'analyzer/retries', unit: 'count', chart: false },
  { name: 'tokens/total', unit: 'tokens', chart: false },
  { name: 'optim/lr', unit: 'lr', chart: 'optim-lr', label: 'learning rate' },
  { name: 'optim/grad_norm', unit: 'norm', chart: 'optim-grad-norm', label: 'grad norm' },
  { name: 'optim/skipped_steps', unit: 'count', chart: false },
  { name: 'time/rollout', unit: 'seconds', chart: 'time' },
  { name: 'time/logprobs', unit: 'seconds', chart: 'time' },
  { name: 'time/analysis', unit: 'seconds', chart: 'time' },
  { name: 'time/teacher', unit: 'seconds', chart: 'time' },
  { name: 'time/update', unit: 'seconds', chart: 'time' },
  { name: 'time/total', unit: 'seconds', chart: 'time' },
  { name: 'time/step', unit: 'seconds', chart: 'time' },
  { name: 'time/eval', unit: 'seconds', chart: false },
  { name: 'success/<task_type>', pattern: '^success/[^/\\s]+$', unit: 'fraction', chart: 'success' },
];
