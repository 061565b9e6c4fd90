// The environment probe (resources/probe_environment.py) of each interpreter, run once per window and reused by
// "SEED: Train" (is the trainer installed? which GPUs?). Set Up Trainer and a changed setting invalidate it.
import { probeInterpreter, type ProbeResult } from './trainerProbe';

export class ProbeCache {
  private readonly results = new Map<string, Promise<ProbeResult>>();

  constructor(private readonly probeScript: string) {}

  get(interpreter: string): Promise<ProbeResult> {
    let result = this.results.get(interpreter);
    if (!result) {
      result = probeInterpreter(interpreter, this.probeScript);
      this.results.set(interpreter, result);
      // A failed probe (e.g. before setup) is retried next time.
      void result.then((r) => {
        if (!r.ok || !r.report.trainer.importable) this.results.delete(interpreter);
      });
    }
    return result;
  }

  invalidate(): void {
    this.results.clear();
  }
}
