// The records of a run directory as TypeScript types (docs/run-format.md). They are generated from
// schemas/*.schema.json (`npm run schema-types`, into ./generated/), the schemas readers validate against, so the two
// cannot drift; this module only gives names to parts of them. Unknown extra fields may be present at run time.

export type { Phase, Task } from './generated/common';
export type { ControlRequest } from './generated/control';
export type { EvalReport } from './generated/eval';
export type { ExperimentConfig, OpdConfig, RecordedExperiment } from './generated/experiment';
export type { MetricRow } from './generated/metric';
export type { RunEvent } from './generated/event';
export type { RunManifest } from './generated/run';
export type { RunTags } from './generated/tags';
export type { SkillRecord } from './generated/skill';
export type { EncodedTokens, Trajectory, TrajectoryStep } from './generated/trajectory';
export type { TrajectoryIndexRow } from './generated/trajectoryIndex';

import type { RunManifest } from './generated/run';
import type { SkillRecord } from './generated/skill';

export type Stage = RunManifest['stage'];
export type RunStatus = RunManifest['status'];
export type SkillReview = SkillRecord['review'];
export type ReviewState = SkillReview['state'];
