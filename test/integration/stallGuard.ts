// The hang guard of the code-server runners: it fires when no test has finished for `limitMs`, not when the suite as a
// whole has run that long. A total limit failed a suite whose every test was passing on a loaded machine (the flake
// hunt, bench/robustness/flake_hunt.mjs: the integration suite's 26 tests took 255 s at load 10 and over its 360 s
// at load 12); a hung test is caught sooner by its own test timeout (mocha's, a step's waits), and this guard catches
// what hangs outside one.

export class StallGuard {
  private last: number;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly limitMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.last = now();
  }

  /** A test finished: the limit counts from now. */
  progressed(): void {
    this.last = this.now();
  }

  /** Milliseconds since the last test finished (or the guard started). */
  idleMs(): number {
    return this.now() - this.last;
  }

  stalled(): boolean {
    return this.idleMs() > this.limitMs;
  }

  /** Calls `onStall` once, the first time a check (every `everyMs`) finds the guard stalled. */
  start(onStall: () => void, everyMs = 1000): void {
    this.stop();
    this.timer = setInterval(() => {
      if (!this.stalled()) return;
      this.stop();
      onStall();
    }, everyMs);
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** A line of the page's console that says a test finished: mocha's spec reporter (✔ passed, `N) title` failed; the
 * page's console shows its format string, `%d) %s`, unformatted). */
export function isTestFinishedLine(text: string): boolean {
  return /✔|(^|\s)(\d+|%d)\) /.test(text);
}
