// What the environment answered to a turn's action: the next step's observation, and for the last turn the
// trajectory's final observation (run format `final_observation`: the reply to the last action). "Nothing happens."
// is the household's and ALFWorld's reply to an inadmissible command: the action had no effect. No DOM, no `vscode`.

export const NOTHING_HAPPENS = /^\s*nothing happens\.?\s*$/i;

/** The reply to step `index`'s action; undefined past the last step or when the run recorded none. */
export function actionResult(trajectory: { steps: ReadonlyArray<{ observation: string }>; final_observation?: string }, index: number): string | undefined {
  if (index < 0 || index >= trajectory.steps.length) return undefined;
  return index + 1 < trajectory.steps.length ? trajectory.steps[index + 1]!.observation : trajectory.final_observation;
}
