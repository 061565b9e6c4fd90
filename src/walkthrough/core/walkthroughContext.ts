// Walkthrough steps whose button asks with pickers before it opens a view are ticked when the view opens (a context
// key the extension sets), not when the command starts: ticking a step re-renders the walkthrough, which can take the
// focus, and a quick pick that loses the focus closes — the picker vanished as it appeared.

/** Context key → the command whose view sets it (the step's button). */
export const WALKTHROUGH_VIEW_OPENED = {
  'seedStudio.walkthrough.trajectoryOpened': 'seedStudio.openTrajectory',
  'seedStudio.walkthrough.trajectoriesCompared': 'seedStudio.compareTrajectories',
} as const;

export type WalkthroughViewKey = keyof typeof WALKTHROUGH_VIEW_OPENED;
