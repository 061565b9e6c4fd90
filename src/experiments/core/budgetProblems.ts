// Values the schema accepts but no run of this field could mean: `rollout.group_size: 4000000` is a valid integer
// and 16 million episodes per update. A warning at the value (not an error: the trainer accepts it, and a user with
// the hardware may mean it), with the number of episodes or tokens it asks for and what the papers use. No `vscode`.
import type { ExperimentProblem } from './experimentSchema';
import { parsedDocument } from './experimentYaml';
import { LineMap } from './experimentText';

interface Bound {
  path: string[];
  /** Above this the warning is shown. */
  most: number;
  /** What the papers (or the defaults) use, for the message. */
  usual: string;
}

const BOUNDS: readonly Bound[] = [
  { path: ['rollout', 'group_size'], most: 64, usual: 'SEED and GRPO use 8' },
  { path: ['rollout', 'tasks_per_update'], most: 1024, usual: 'SEED uses 16' },
  { path: ['rollout', 'max_steps'], most: 500, usual: 'ALFWorld runs use 30–50' },
  { path: ['rollout', 'max_response_tokens'], most: 32_768, usual: 'SEED uses 512' },
  { path: ['updates'], most: 100_000, usual: 'SEED trains 150 updates' },
  { path: ['eval', 'tasks'], most: 100_000, usual: 'the benchmarks evaluate 120–500 tasks per split' },
  { path: ['collect', 'tasks_per_type'], most: 100_000, usual: 'the demo collects 16 per type' },
];

/** Episodes one update plays (tasks × group size), when both are numbers. */
function episodesPerUpdate(value: Record<string, unknown>): number | undefined {
  const rollout = value.rollout as { tasks_per_update?: unknown; group_size?: unknown } | undefined;
  const tasks = typeof rollout?.tasks_per_update === 'number' ? rollout.tasks_per_update : 16;
  const group = typeof rollout?.group_size === 'number' ? rollout.group_size : 8;
  return tasks * group;
}

export function budgetProblems(text: string): ExperimentProblem[] {
  const document = parsedDocument(text);
  if (!document) return [];
  const value = document.toJS() as unknown;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  const lines = new LineMap(text);
  const problems: ExperimentProblem[] = [];
  for (const bound of BOUNDS) {
    const node = document.getIn(bound.path, true) as { value?: unknown; range?: [number, number, number] } | undefined;
    if (typeof node?.value !== 'number' || node.value <= bound.most || !node.range) continue;
    const field = bound.path.join('.');
    const episodes = bound.path[0] === 'rollout' && (bound.path[1] === 'group_size' || bound.path[1] === 'tasks_per_update') ? episodesPerUpdate(value as Record<string, unknown>) : undefined;
    const cost = episodes !== undefined ? `: one update would play ${episodes.toLocaleString('en-US')} episodes` : '';
    problems.push({
      message: `${field}: ${node.value.toLocaleString('en-US')} is far beyond what a run of this field uses (${bound.usual}; above ${bound.most.toLocaleString('en-US')} is flagged)${cost}`,
      range: lines.span(node.range[0], node.range[1]),
      severity: 'warning',
      field,
      source: 'limit',
    });
  }
  return problems;
}
