// The records of a run directory as TypeScript types (docs/run-format.md; schemas/*.schema.json are the authority and
// are what readers validate against). Optional fields are optional here too; unknown extra fields may be present.

export type Timestamp = string;
export type Stage = 'collect' | 'sft' | 'train' | 'eval';
export type RunStatus = 'running' | 'stopping' | 'stopped' | 'failed' | 'completed';
export type Algorithm = 'seed' | 'grpo' | 'grpo_opsd' | 'opsd' | 'sdar';
export type Phase = 'collect' | 'train' | 'eval';
export type AnalyzerSource = 'self' | 'external' | 'oracle' | 'static';
export type ReviewState = 'pending' | 'accepted' | 'rejected' | 'edited';
export type MetricKind = 'collect' | 'sft' | 'update' | 'eval';

export interface RunManifest {
  format_version: number;
  id: string;
  name: string;
  experiment: { path: string; sha256: string };
  config: Record<string, unknown>;
  stage: Stage;
  algorithm: Algorithm;
  status: RunStatus;
  pid: number;
  host: string;
  started: Timestamp;
  ended?: Timestamp | null;
  heartbeat?: Timestamp;
  progress?: { step: number; total: number | null; unit?: string };
  error?: string | null;
  git_commit?: string | null;
  git_dirty?: boolean | null;
  parent?: { run?: string; checkpoint?: string } | null;
  /** split → the base evaluation run directory, relative to this run directory (before/after). */
  baseline_evals?: Record<string, string> | null;
  versions: { trainer: string; python: string; torch?: string | null; transformers?: string | null };
  device: { kind: 'cuda' | 'cpu' | 'mps'; name: string; count: number; memory_bytes?: number | null };
}

export interface RunEvent {
  time: Timestamp;
  type: string;
  message: string;
  step?: number;
  stage?: Stage;
  pid?: number;
  phase?: string;
  done?: number;
  total?: number | null;
  path?: string;
  split?: string;
  success?: number;
  code?: string;
  detail?: string;
  source?: 'control' | 'signal';
  signal?: string;
  status?: 'stopped' | 'failed' | 'completed';
}

/** A metrics row: reserved keys plus namespaced metric values (`success/overall`, `loss/pg`, …; null = undefined). */
export interface MetricRow {
  step: number;
  time: Timestamp;
  kind: MetricKind;
  epoch?: number;
  split?: string;
  [metric: `${string}/${string}`]: number | null;
}

export interface Task {
  id: string;
  type: string;
  description?: string;
  split?: string;
}

export interface TrajectorySkill {
  text: string | null;
  summary?: string | null;
  valid: boolean;
  source: AnalyzerSource;
  reason?: string | null;
  raw?: string;
}

/** `steps[i].tokens` as stored: numeric arrays are base64 little-endian int32 / float32. */
export interface EncodedTokens {
  count: number;
  ids: string;
  text: string[];
  logp?: string;
  teacher_logp?: string;
  delta?: string;
  gate?: string;
  /** What the OPD estimator subtracted from g (opd.estimator centred, baseline, expected); only beside `gate`. */
  gate_baseline?: string;
}

export interface TrajectoryStep {
  t: number;
  observation: string;
  prompt?: string;
  response: string;
  action: string | null;
  valid: boolean;
  env_reward?: number;
  score?: number;
  advantage?: number | null;
  prompt_tokens?: number;
  truncated?: boolean;
  tokens?: EncodedTokens;
}

export interface Trajectory {
  id: string;
  phase: Phase;
  update: number | null;
  task: Task;
  group?: number;
  sample?: number;
  success: boolean;
  reward: number;
  length: number;
  skill?: TrajectorySkill | null;
  final_observation?: string;
  steps: TrajectoryStep[];
}

export interface TrajectoryIndexRow {
  id: string;
  file: string;
  line: number;
  offset: number;
  size: number;
  phase: Phase;
  update: number | null;
  task: Task;
  group?: number;
  sample?: number;
  success: boolean;
  reward: number;
  length: number;
  tokens: number;
  teacher: boolean;
  skill?: { valid: boolean; source: AnalyzerSource } | null;
}

export interface SkillReview {
  state: ReviewState;
  text?: string;
  time?: Timestamp;
  note?: string;
}

export interface SkillRecord {
  id: string;
  trajectory: { id: string; file: string } | null;
  task: Task;
  success: boolean;
  reward: number;
  length: number;
  source: AnalyzerSource;
  model?: string | null;
  summary: string | null;
  skill: string | null;
  valid: boolean;
  reason: string | null;
  raw?: string;
  time: Timestamp;
  review: SkillReview;
}

export interface EvalSummary {
  success: number;
  n: number;
  mean_length?: number;
}

export interface EvalReport {
  split: string;
  step: number | null;
  checkpoint?: string | null;
  time: Timestamp;
  overall: EvalSummary;
  by_task_type: Record<string, EvalSummary>;
  episodes: { task: Task; success: boolean; reward: number; length: number; trajectory?: string }[];
}

/** tags.json: the user's labels of a run, written by the extension (docs/run-format.md §10). */
export interface RunTags {
  tags: string[];
  time?: Timestamp;
  source?: string;
}

export interface ControlRequest {
  request: 'stop';
  time: Timestamp;
  source?: string;
}
