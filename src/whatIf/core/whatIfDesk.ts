// What if…'s requests for one trajectory viewer (vscode-free; the panel and the tests give it the work). Each page
// request is answered with its outcome (src/whatIf/shared/whatIfProtocol.ts). The desk remembers the one job it
// runs, a rescoring or an export, because a page can be re-created while it runs (a webview hidden and shown again
// reloads): the old page's request is then never answered, so the new page is told the job runs and asks to wait for
// its end (`whatIfWait`). The results are the session's, not the page's, so a reload shows the unsaved ones again.
//
// Consent to the trainer is a reply, not a question from the host: `whatIf` answers `needsConsent`, the page asks the
// user and, on yes, sends a new `whatIf` with `useTrainer`. A host asking the page in the middle of its request would
// keep both open while the user thinks, and a reload would lose them together; this way nothing runs while the
// question waits, and each exchange is one await after which the page is usable again.
import type { Handlers } from '../../webviewHost/shared/protocol';
import type { WhatIfToHost } from '../shared/whatIfProtocol';
import type { WhatIfJob, WhatIfReply, WhatIfState } from '../shared/whatIfRecord';

/** What the desk runs: WhatIfSession and SEED: Export Checkpoint… in the extension. */
export interface WhatIfWork {
  /** Reads the results saved with the run into the session (once, when the viewer first shows). */
  reopen(): void;
  state(): WhatIfState;
  rescore(skill: string, useTrainer: boolean): Promise<WhatIfReply>;
  save(): Promise<WhatIfState>;
  exportCheckpoint(checkpoint: string): Promise<void>;
}

function described(job: WhatIfJob): string {
  return job.kind === 'rescore' ? 'a rescoring' : `the export of ${job.checkpoint}`;
}

export class WhatIfDesk {
  readonly handlers: Handlers<WhatIfToHost>;
  private running: { job: WhatIfJob; ended: Promise<unknown> } | undefined;
  private reopened = false;

  constructor(private readonly work: WhatIfWork) {
    this.handlers = {
      whatIf: ({ skill, useTrainer }) => {
        if (typeof skill !== 'string') throw new Error('no skill given');
        const trainer = useTrainer === true;
        return this.run({ kind: 'rescore', skill, trainer }, () => work.rescore(skill, trainer));
      },
      saveWhatIf: () => work.save(),
      // The command checks that the run keeps these weights (the page's text is not trusted).
      whatIfExport: ({ checkpoint }) => {
        if (typeof checkpoint !== 'string') throw new Error('no checkpoint named');
        return this.run({ kind: 'export', checkpoint }, () => work.exportCheckpoint(checkpoint));
      },
      whatIfWait: () => this.wait(),
    };
  }

  /** What a page that has just said ready starts from: the results (the saved ones read at the first) and the job
   * running now; undefined when there is neither. */
  restored(): WhatIfState | undefined {
    if (!this.reopened) {
      this.reopened = true;
      this.work.reopen();
    }
    const state: WhatIfState = { ...this.work.state(), ...(this.running ? { running: this.running.job } : {}) };
    return state.results.length > 0 || state.running ? state : undefined;
  }

  /** One job at a time: a second would share the session's rescorer and results with the first. */
  private async run<T>(job: WhatIfJob, task: () => Promise<T>): Promise<T> {
    if (this.running) throw new Error(`${described(this.running.job)} is still running: try again once it has ended.`);
    const ended = task();
    const entry = { job, ended };
    this.running = entry;
    try {
      return await ended;
    } finally {
      if (this.running === entry) this.running = undefined;
    }
  }

  /** The state once the running job has ended (at once when none runs); its error when it failed. */
  private async wait(): Promise<WhatIfState> {
    await this.running?.ended;
    return this.work.state();
  }
}
