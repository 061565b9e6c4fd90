// Why an evaluated episode failed, in a few words for the evaluation samples' "why it failed" column: it ran out of
// steps, how many actions had no effect ("Nothing happens.", the household's and ALFWorld's reply to an inadmissible
// command), the action it repeated most (a loop), and malformed turns (no well-formed <action>). No DOM, no `vscode`.

import { NOTHING_HAPPENS, actionResult } from '../../runs/shared/actionResult';

export interface EpisodeStep {
  action: string | null;
  valid: boolean;
  observation: string;
}

export interface Diagnosis {
  steps: number;
  outOfSteps: boolean;
  noEffect: number;
  malformed: number;
  /** The action issued most often, when three times or more. */
  repeated?: { action: string; times: number };
}

/** An action's result is the next step's observation, the last one's the final observation. */
export function diagnoseEpisode(steps: readonly EpisodeStep[], finalObservation: string | undefined, maxSteps: number | undefined): Diagnosis {
  const trajectory = { steps, ...(finalObservation !== undefined ? { final_observation: finalObservation } : {}) };
  let noEffect = 0;
  const counts = new Map<string, number>();
  steps.forEach((step, i) => {
    if (step.valid && NOTHING_HAPPENS.test(actionResult(trajectory, i) ?? '')) noEffect += 1;
    if (step.action !== null) counts.set(step.action, (counts.get(step.action) ?? 0) + 1);
  });
  let repeated: Diagnosis['repeated'];
  for (const [action, times] of counts) if (times >= 3 && (!repeated || times > repeated.times)) repeated = { action, times };
  return {
    steps: steps.length,
    outOfSteps: maxSteps !== undefined && steps.length >= maxSteps,
    noEffect,
    malformed: steps.filter((s) => !s.valid).length,
    ...(repeated ? { repeated } : {}),
  };
}

/** `ran out of steps (20/20) · 7 without effect · “go to cabinet 1” ×4 · 1 malformed`; `ended early` otherwise. */
export function failureText(d: Diagnosis, maxSteps: number | undefined): string {
  const parts = [
    d.outOfSteps ? `ran out of steps (${d.steps}/${maxSteps})` : `ended after ${d.steps} step${d.steps === 1 ? '' : 's'}`,
    d.noEffect > 0 ? `${d.noEffect} without effect` : '',
    d.repeated ? `“${d.repeated.action}” ×${d.repeated.times}` : '',
    d.malformed > 0 ? `${d.malformed} malformed` : '',
  ];
  return parts.filter(Boolean).join(' · ');
}
