// What a run is called wherever runs are listed (Runs tree, dashboard, pickers): the experiment's name alone reads
// the same for a Stage-1 collection, its SFT, a Stage-2 run and two evaluations of one checkpoint. The title adds what
// tells them apart (the stage or algorithm, the evaluated splits); runs whose titles still collide get their start
// time. The success shown is the last training success, or each evaluated split's. No `vscode` import.
import type { MetricRow, RunManifest } from '../shared/types';

export interface RunFacts {
  /** The run directory (the identity). */
  dir: string;
  manifest: RunManifest | undefined;
  metrics: readonly MetricRow[];
  /** Splits of the run's evaluation trajectories (the index's eval batches), for an evaluation still running. */
  evalSplits?: readonly string[];
}

/** The evaluation splits of a run, in the order first seen. */
function evaluatedSplits(facts: RunFacts): string[] {
  const splits = new Set<string>();
  for (const row of facts.metrics) if (row.kind === 'eval' && row.split) splits.add(row.split);
  for (const split of facts.evalSplits ?? []) splits.add(split);
  return [...splits];
}

function directoryName(dir: string): string {
  return dir.split(/[/\\]/).filter(Boolean).pop() ?? dir;
}

/** A run's title in two parts: its experiment's name and what tells its runs apart (`seed`, `sft`, `eval valid_seen`);
 * `what` is empty for a run without a readable manifest, whose name is its directory's. */
export function runTitleParts(facts: RunFacts): { name: string; what: string } {
  const manifest = facts.manifest;
  if (!manifest) return { name: directoryName(facts.dir), what: '' };
  let what: string = manifest.stage === 'train' ? manifest.algorithm : manifest.stage;
  if (manifest.stage === 'eval') {
    const splits = evaluatedSplits(facts);
    if (splits.length > 0) what = `eval ${splits.join(', ')}`;
  }
  return { name: manifest.name, what };
}

/** `household-demo · eval valid_seen`, `household-demo · seed`, `household-demo · sft`… */
export function runTitle(facts: RunFacts): string {
  const { name, what } = runTitleParts(facts);
  return what ? `${name} · ${what}` : name;
}

function percent(value: number): string {
  return `${Math.round(value * 100)}%`;
}

/** A run's success as shown beside it: the last training success of a run that trains (`success`), its latest
 * evaluation of each split once it no longer does (`eval`, in split order), an eval run's per split. `named`: the
 * full text names each split (an eval run of several splits). */
export interface RunResult {
  word: 'success' | 'eval';
  values: Array<[split: string, value: number]>;
  named: boolean;
}

export function runResult(facts: RunFacts): RunResult | undefined {
  const lastEval = new Map<string, number>();
  let lastTrain: number | undefined;
  for (const row of facts.metrics) {
    const value = row['success/overall'];
    if (typeof value !== 'number') continue;
    if (row.kind === 'eval') lastEval.set(row.split ?? 'eval', value);
    else if (row.kind !== 'sft') lastTrain = value;
  }
  const stage = facts.manifest?.stage;
  const training = facts.manifest?.status === 'running' || facts.manifest?.status === 'stopping';
  if (stage === 'eval' || lastTrain === undefined) {
    if (lastEval.size === 0) return lastTrain === undefined ? undefined : { word: 'success', values: [['', lastTrain]], named: false };
    return { word: 'success', values: [...lastEval], named: lastEval.size > 1 || stage !== 'eval' };
  }
  if (lastEval.size > 0 && !training) return { word: 'eval', values: [...lastEval].sort((a, b) => a[0].localeCompare(b[0])), named: false };
  return { word: 'success', values: [['', lastTrain]], named: false };
}

/**
 * The success to show beside a run, labelled: `success 42%` (the last training batch of a live run), `eval 52% / 36%`
 * (a train run's latest evaluation of each split once it is no longer training: its end-of-run evaluation, in split
 * order, not its last training batch), `success 40%` or `success valid_seen 40%, valid_unseen 35%` (an eval run).
 */
export function runSuccess(facts: RunFacts): string | undefined {
  const result = runResult(facts);
  return result && successText(result);
}

export function successText(result: RunResult): string {
  if (result.named) return `success ${result.values.map(([split, value]) => `${split} ${percent(value)}`).join(', ')}`;
  return `${result.word} ${result.values.map(([, value]) => percent(value)).join(' / ')}`;
}

/** The numbers alone, for a row of the sidebar: `42%`, `52%/36%` (the splits in the order of the full text). */
export function compactSuccess(result: RunResult): string {
  return result.values.map(([, value]) => percent(value)).join('/');
}

/** `2026-11-30 14:05` from an ISO start time (UTC, as run ids are). */
function startedAt(manifest: RunManifest | undefined): string {
  const started = manifest?.started ?? '';
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?/.exec(started);
  return match ? `${match[1]} ${match[2]}${match[3] ?? ''}` : started;
}

/**
 * What each run's title needs after it so that no other run of `all` shares it: nothing, the start time when titles
 * collide, then the directory's name when start times collide too.
 */
export function titleExtras(all: readonly RunFacts[]): Map<string, string[]> {
  const titles = new Map(all.map((facts) => [facts.dir, runTitle(facts)]));
  const extras = new Map(all.map((facts) => [facts.dir, [] as string[]]));
  const disambiguate = (extra: (facts: RunFacts) => string): void => {
    const count = new Map<string, number>();
    for (const title of titles.values()) count.set(title, (count.get(title) ?? 0) + 1);
    for (const facts of all) {
      const title = titles.get(facts.dir) ?? '';
      if ((count.get(title) ?? 0) <= 1) continue;
      const added = extra(facts);
      titles.set(facts.dir, `${title} · ${added}`);
      extras.get(facts.dir)?.push(added);
    }
  };
  disambiguate((facts) => startedAt(facts.manifest));
  disambiguate((facts) => directoryName(facts.dir));
  return extras;
}
