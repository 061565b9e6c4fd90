// The arguments of `seedStudio.setUpTrainer` (src/training/setUpTrainer.ts), which other features' quick fixes run.
export interface SetUpTrainerArgs {
  /** Skip the confirmation of a new virtual environment (tests, scripted use). */
  confirmed?: boolean;
  /** The optional extras to install (the missing-extra quick fix); absent: the user picks them. */
  extras?: string[];
}
