// The words and numbers of the premise report view (webview/premise, src/premise/premisePanel.ts): a report of
// `python -m seed_trainer premise` (schemas/premise.schema.json) turned into a verdict sentence per contrast, number and
// interval texts, and plain table rows. Rates and their differences are shown in percent and percentage points; a
// verdict says "more" or "less" only when the interval excludes 0, else "not distinguishable". Pure: no vscode, no
// DOM; the page puts every string in as text.
import type { Contrast, ExpertSection, ExpertSource, Interval, NotApplicable, PremiseReport, RunSection, RunSource, SkillCounts } from '../../runs/shared/generated/premise';

export const MINUS = '\u2212';
/** Below this many tasks a verdict carries a warning: a bootstrap over so few clusters is rough. */
export const FEW_TASKS = 5;

/** `x` with `digits` decimals and a sign: +10.5, −4.5; a value that rounds to zero is `0.0`. */
export function signed(x: number, digits = 1): string {
  const text = Math.abs(x).toFixed(digits);
  if (Number(text) === 0) return text;
  return `${x < 0 ? MINUS : '+'}${text}`;
}

/** A proportion in percent: `48.0 %`; null → `—`. */
export function percent(x: number | null | undefined, digits = 1): string {
  return x === null || x === undefined ? '—' : `${(100 * x).toFixed(digits)} %`;
}

/** Both ends of an interval, or undefined when either could not be computed. */
export function bounds(interval: Interval): [number, number] | undefined {
  const [low, high] = interval;
  return typeof low === 'number' && typeof high === 'number' ? [low, high] : undefined;
}

/** A proportion's interval in percent: `[42.2, 55.9]`; `no interval` when it could not be computed. */
export function percentInterval(interval: Interval, digits = 1): string {
  const ends = bounds(interval);
  return ends ? `[${(100 * ends[0]).toFixed(digits)}, ${(100 * ends[1]).toFixed(digits)}]` : 'no interval';
}

/** A rate with its interval: `48.0 % [42.2, 55.9]`. */
export function rateText(rate: number | null, interval: Interval): string {
  if (rate === null) return '—';
  const ends = bounds(interval);
  return ends ? `${percent(rate)} ${percentInterval(interval)}` : `${percent(rate)} (no interval)`;
}

/** Nats, signed: 3 decimals, or 2 significant digits below 0.01 (`+0.019`, `−0.0024`); null → `—`. */
export function nats(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  if (x === 0) return '0';
  const magnitude = Math.abs(x) >= 0.01 ? Math.abs(x).toFixed(3) : Math.abs(x).toPrecision(2);
  return `${x < 0 ? MINUS : '+'}${magnitude}`;
}

/** A non-negative size in nats (mean |Δ|): `0.129`, `0.0047`. */
export function magnitude(x: number): string {
  if (x === 0) return '0';
  return x >= 0.01 ? x.toFixed(3) : x.toPrecision(2);
}

/** A whole number with thousands separated: 153,980. */
export function count(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Seconds as people read them: `35.1 s`, `12 min 5 s`, `2 h 3 min`. */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${whole % 60} s`;
  return `${Math.floor(whole / 3600)} h ${Math.floor((whole % 3600) / 60)} min`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Where an interval lies against a value (0 for a difference, ½ for a rate). */
export type Side = 'above' | 'below' | 'holds' | 'unknown';

export function sideOf(interval: Interval, against = 0): Side {
  const ends = bounds(interval);
  if (!ends) return 'unknown';
  if (ends[0] > against) return 'above';
  if (ends[1] < against) return 'below';
  return 'holds';
}

/** A rate against chance (½: a tie or a coin flip): `above chance`, `below chance`, `not distinguishable from chance`. */
export function chanceText(rate: number | null, interval: Interval): string {
  if (rate === null) return '—';
  return { above: 'above chance', below: 'below chance', holds: 'not distinguishable from chance', unknown: 'no interval' }[sideOf(interval, 0.5)];
}

// The order sources are listed in: each source beside its placebo, then any other.
const SOURCE_ORDER = ['oracle', 'placebo_oracle', 'own', 'placebo_own', 'recorded', 'placebo_recorded'];

export function orderedSources(names: Iterable<string>): string[] {
  const rank = (name: string) => (SOURCE_ORDER.includes(name) ? SOURCE_ORDER.indexOf(name) : SOURCE_ORDER.length);
  return [...new Set(names)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** How a source is named in the tables: `own`, `placebo of own`. */
export function sourceLabel(name: string): string {
  return name.startsWith('placebo_') ? `placebo of ${name.slice('placebo_'.length)}` : name;
}

/** What each source is, for a title. */
export function sourceDescription(name: string): string {
  if (name.startsWith('placebo_')) return `the same-outcome skill of another task, in place of ${sourceLabel(name.slice('placebo_'.length))}`;
  return { oracle: "the oracle analyzer's skill", own: "the model's own skill (greedy, the Stage-2 analysis prompt)", recorded: "the run's recorded skill" }[name] ?? `skill source "${name}"`;
}

/** The subject of a verdict and how it then refers to the model. */
function subjectOf(source: string): [subject: string, model: string] {
  switch (source) {
    case 'own':
      return ["The model's own skills", 'it'];
    case 'oracle':
      return ["The oracle analyzer's skills", 'the model'];
    case 'recorded':
      return ["The run's recorded skills", 'the model'];
    default:
      return [`The ${source} skills`, 'the model'];
  }
}

export interface VerdictLine {
  /** above: the source beats its placebo; below: the placebo beats it; holds: not distinguishable; unknown: no interval. */
  side: Side;
  text: string;
}

/**
 * The verdict of one contrast (source − placebo, paired by task) in words, computed from its numbers:
 * `expert`: the win rate P(Δ(a*) > Δ(m)); `runs`: the AUC between steps of successful and failed episodes.
 */
export function contrastVerdict(contrast: Contrast, kind: 'expert' | 'runs'): VerdictLine {
  const [subject, model] = subjectOf(contrast.source);
  const side = contrast.difference === null ? 'unknown' : sideOf(contrast.interval);
  const unit = kind === 'expert' ? 'points' : 'AUC points';
  const ends = bounds(contrast.interval);
  const value = contrast.difference === null ? '—' : signed(100 * contrast.difference);
  const over = `over ${plural(contrast.tasks, 'task')}`;
  const caution = contrast.tasks < FEW_TASKS ? ` (only ${plural(contrast.tasks, 'task')}: an interval over so few is rough)` : '';
  const placebo = "another task's skill";
  if (side === 'unknown' || !ends) {
    return { side: 'unknown', text: `${subject} cannot be compared with ${placebo}: ${value} ${unit} ${over}, and no interval could be computed` };
  }
  const claim =
    kind === 'expert'
      ? {
          above: `${subject} move ${model} toward the expert action more than ${placebo}`,
          below: `${subject} move ${model} toward the expert action less than ${placebo} does`,
          holds: `${subject} are not distinguishable from ${placebo}`,
        }[side]
      : {
          above: `${subject} separate steps of successful episodes from those of failed ones better than ${placebo}`,
          below: `${subject} separate steps of successful episodes from those of failed ones worse than ${placebo}`,
          holds: `${subject} are not distinguishable from ${placebo} at separating steps of successful and failed episodes`,
        }[side];
  return { side, text: `${claim}: ${value} ${unit} [${signed(100 * ends[0])}, ${signed(100 * ends[1])}] ${over}${caution}` };
}

interface SourcesWithStatus {
  [name: string]: { status: 'n/a'; reason: string } | { status: 'ok' };
}

/** Sentences for what has no verdict: sources that are n/a (with the trainer's reason), and scored sources without a
 * placebo contrast. */
export function missingVerdicts(sources: SourcesWithStatus, contrasts: readonly Contrast[]): string[] {
  const lines: string[] = [];
  for (const name of orderedSources(Object.keys(sources))) {
    const source = sources[name]!;
    if (source.status === 'n/a') lines.push(`${sourceLabel(name)}: n/a — ${source.reason}`);
  }
  for (const name of orderedSources(Object.keys(sources))) {
    if (name.startsWith('placebo_') || sources[name]!.status !== 'ok') continue;
    if (contrasts.some((c) => c.source === name)) continue;
    const placebo = sources[`placebo_${name}`];
    const why = !placebo ? 'no placebo was scored' : placebo.status === 'n/a' ? 'its placebo is n/a' : 'fewer than two tasks have both';
    lines.push(`${sourceLabel(name)}: no contrast with its placebo (${why})`);
  }
  return lines;
}

/** One line of the settings, as the report names them. */
export function settingsLine(settings: PremiseReport['settings']): string {
  const s = settings;
  return [
    `history ${s.history}`,
    ...(s.memory ? ['memory line on'] : []),
    `max_steps ${s.max_steps}`,
    `max_prompt_tokens ${s.max_prompt_tokens}`,
    `analysis_tokens ${s.analysis_tokens}`,
    `temperature ${s.temperature}`,
    `β ${s.beta}`,
    `${count(s.resamples)} resamples`,
    `${percent(s.level, 0)} intervals`,
    `seed ${s.seed}`,
    s.dtype,
  ].join(' · ');
}

/** The times: `35.1 s in all; forward passes 27.9 s over 153,980 tokens`. What they cover is the report's `covers`. */
export function timingLine(timing: PremiseReport['timing']): string {
  const rate = timing.forward_seconds > 0 ? ` (${count(timing.forward_tokens / timing.forward_seconds)} tokens/s)` : '';
  return `${duration(timing.seconds)} in all; forward passes ${duration(timing.forward_seconds)} over ${count(timing.forward_tokens)} tokens${rate}`;
}

/** A table as the page draws it: a row with `na` is its label and one cell saying why it is n/a. */
export interface TableRow {
  key: string;
  label: string;
  title?: string;
  cells: string[];
  na?: string;
}

export interface Table {
  headers: string[];
  rows: TableRow[];
}

function skillCell(skills: SkillCounts, name: string): string {
  const counts = skills[name];
  return counts ? `${counts.with_skill} of ${counts.items}` : '—';
}

/** The header line of the expert section. */
export function expertSummary(section: ExpertSection): string {
  return `split ${section.split} · ${plural(section.tasks, 'task')} · ${plural(section.states, 'state')} · ${count(section.pairs)} pairs of the expert action and a mistake`;
}

/** What attempt A (the attempt the skills were written about) was. */
export function attemptSummary(section: ExpertSection): string {
  const a = section.attempt_a;
  const rates = Object.entries(a.mistake_rates)
    .sort(([x], [y]) => x.localeCompare(y))
    .map(([kind, rate]) => `${kind} ${percent(rate, 0)}`)
    .join(', ');
  return `Attempt A, which the skills were written about: won ${a.won} of ${plural(section.tasks, 'task')}; mistakes injected at ${rates || 'no rate'}; an invalid action repeated ${percent(a.repeat_invalid, 0)} of the time`;
}

/** One row per skill source in the usual order, its skill count first: a source that is n/a says why, a scored one
 * gets `cells(source)` after the count. */
function sourceRows<S extends ExpertSource | RunSource>(
  sources: Record<string, S | NotApplicable>,
  skills: SkillCounts,
  cells: (source: S) => string[],
): TableRow[] {
  return orderedSources(Object.keys(sources)).map((name): TableRow => {
    const source = sources[name]!;
    const base = { key: name, label: sourceLabel(name), title: sourceDescription(name) };
    const first = skillCell(skills, name);
    return source.status === 'n/a' ? { ...base, cells: [first], na: source.reason } : { ...base, cells: [first, ...cells(source)] };
  });
}

/** Per source: pairs, tasks, the win rate P(Δ(a*) > Δ(m)) with its interval, the whole response's, mean Δ of a* and m. */
export function expertTable(section: ExpertSection, level: number): Table {
  const lv = percent(level, 0);
  const headers = ['source', 'with a skill', 'pairs', 'tasks', `P(Δ(a*) > Δ(m)) [${lv}]`, 'against chance', `whole response [${lv}]`, 'mean Δ(a*)', 'mean Δ(m)'];
  const rows = sourceRows(section.sources, section.skills, (source: ExpertSource) => [
    count(source.pairs),
    String(source.tasks),
    rateText(source.win_rate, source.interval),
    chanceText(source.win_rate, source.interval),
    rateText(source.whole_response.win_rate, source.whole_response.interval),
    nats(source.mean_delta_expert),
    nats(source.mean_delta_mistake),
  ]);
  return { headers, rows };
}

/** Mistake kind × source: each kind's win rate with its interval, and on a second line its pairs and tasks. */
export function kindTable(section: ExpertSection, level: number): Table {
  const scored = orderedSources(Object.keys(section.sources)).filter((name) => section.sources[name]!.status === 'ok');
  const kinds = [...new Set(scored.flatMap((name) => {
    const source = section.sources[name]!;
    return source.status === 'ok' ? Object.keys(source.by_kind) : [];
  }))].sort();
  return {
    headers: ['mistake kind', ...scored.map((name) => `${sourceLabel(name)} [${percent(level, 0)}]`)],
    rows: kinds.map((kind) => ({
      key: kind,
      label: kind,
      cells: scored.map((name) => {
        const source = section.sources[name]!;
        const result = source.status === 'ok' ? source.by_kind[kind] : undefined;
        return result ? `${rateText(result.win_rate, result.interval)}\n${count(result.pairs)} pairs, ${plural(result.tasks, 'task')}` : '—';
      }),
    })),
  };
}

/** The skills shown as examples: the task, whether attempt A won, the oracle's and the model's own skill. */
export function examplesTable(section: ExpertSection): Table {
  return {
    headers: ['task', 'attempt A', 'oracle skill', 'own skill'],
    rows: section.examples.map((example, i) => ({
      key: String(i),
      label: example.task,
      cells: [example.won ? 'won' : 'failed', example.oracle ?? '— (none)', example.own ?? '— (none: the reply did not parse)'],
    })),
  };
}

/** The header line of a scored run. */
export function runSummary(section: RunSection): string {
  return `${section.trajectories} ${section.trajectories === 1 ? 'trajectory' : 'trajectories'}, ${section.successes} successful`;
}

/** Per source of a run: trajectories, tasks, steps of successful and failed episodes, the AUC with its interval. */
export function runTable(section: RunSection, level: number): Table {
  const headers = ['source', 'with a skill', 'trajectories', 'tasks', 'steps (successful / failed)', `AUC [${percent(level, 0)}]`, 'against chance'];
  const rows = sourceRows(section.sources, section.skills, (source: RunSource) => [
    String(source.trajectories),
    String(source.tasks),
    `${count(source.steps_success)} / ${count(source.steps_failure)}`,
    rateText(source.auc, source.interval),
    chanceText(source.auc, source.interval),
  ]);
  return { headers, rows };
}

// Token kinds in the order the trainer names them, then any other.
const TOKEN_KINDS = ['action', 'think', 'format'];

/** The neutral band in words. */
export function gateBandLine(gate: PremiseReport['gate_band']): string {
  return `β ${gate.beta}: a token's gate g = σ(βΔ) is outside the neutral band when |g − ½| ≥ ${gate.neutral_band.gate} (the trajectory viewer leaves it uncoloured inside; on its Δ scale the centre bin is |Δ| < ${gate.neutral_band.delta})`;
}

/** Source × token kind: the share of tokens whose gate leaves the neutral band (how many of how many), the mean |Δ|. */
export function gateTable(gate: PremiseReport['gate_band']): Table {
  const sources = orderedSources(Object.keys(gate.sources));
  const present = new Set(sources.flatMap((name) => Object.keys(gate.sources[name]!)));
  const kinds = [...TOKEN_KINDS.filter((k) => present.has(k)), ...[...present].filter((k) => !TOKEN_KINDS.includes(k)).sort()];
  return {
    headers: ['source', ...kinds.flatMap((kind) => [`${kind}: outside the band`, `${kind}: mean |Δ|`])],
    rows: sources.map((name) => ({
      key: name,
      label: sourceLabel(name),
      title: sourceDescription(name),
      cells: kinds.flatMap((kind) => {
        const cell = gate.sources[name]![kind];
        return cell ? [`${percent(cell.share_outside)} (${count(cell.outside)} of ${count(cell.tokens)})`, magnitude(cell.mean_abs_delta)] : ['—', '—'];
      }),
    })),
  };
}
