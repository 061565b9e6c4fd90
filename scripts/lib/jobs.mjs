// Runs commands side by side on a fixed number of slots, for the setup and test scripts: while one suite waits (on a
// browser, a subprocess, the disk) or holds only one core, another runs. Each job's output stays in one piece in the
// log: one job at a time (the lead, the earliest started of those running) streams its output as it comes; the
// others collect theirs, and a job that finished is printed whole, under its ▶ banner, at the next line break of the
// lead. When the lead ends, the next earliest-started job prints what it has so far and streams from there.
import { spawn } from 'node:child_process';
import { step } from './proc.mjs';

/**
 * @typedef {{ label: string, cmd: Command | (() => Command), env?: NodeJS.ProcessEnv, after?: string[], unslotted?: boolean }} Job
 *   `cmd`: [command, args], or a function that gives them when the job starts. `env`: instead of runJobs' env.
 *   `after`: labels of jobs that must have passed (exit 0) before this one starts; when one fails, this one does not
 *   run. `unslotted`: runs as soon as it may, beside the slots' jobs (an install that mostly waits on disk or network).
 * @typedef {[string, string[]]} Command
 * @typedef {{ code: number | null, text: string, seconds: number, startedAt?: number, notRun?: string }} JobResult
 *   `startedAt`: seconds from runJobs' call to the job's start. `notRun`: why the job did not run (a job it needs
 *   failed); its code is then null.
 */

/**
 * Runs `jobs`, at most `slots` of them at a time (besides the unslotted ones), each as soon as a slot is free and the
 * jobs it comes `after` have passed, the earlier in `jobs` first. Resolves with a Map label → JobResult once all ended.
 * @param {Job[]} jobs
 * @param {{ slots: number, cwd: string, env: NodeJS.ProcessEnv, out?: { write(text: string): unknown } }} options
 *   `out`: where the log goes (standard output).
 */
export function runJobs(jobs, { slots, cwd, env, out = process.stdout }) {
  const labels = new Set(jobs.map((job) => job.label));
  for (const job of jobs) {
    const unknown = (job.after ?? []).filter((label) => !labels.has(label));
    if (unknown.length) throw new Error(`job "${job.label}" waits for unknown job(s): ${unknown.join(', ')}`);
  }
  const began = Date.now();
  const waiting = [...jobs];
  const results = new Map();
  /** Running or ended but not yet printed, in start order: { job, text, shown, done, started } */
  const open = [];
  let lead;
  let atLineStart = true; // the log's last character is a line break
  let leadInterrupted = false; // other jobs' output was printed since the lead's last

  const write = (text) => {
    if (!text) return;
    out.write(text);
    atLineStart = text.endsWith('\n');
  };
  /** Prints every ended job that is not the lead, whole, in start order. */
  const flushEnded = () => {
    for (const entry of [...open]) {
      if (!entry.done || entry === lead) continue;
      step(entry.job.label, out);
      write(entry.text);
      if (!atLineStart) write('\n');
      open.splice(open.indexOf(entry), 1);
      leadInterrupted = lead !== undefined;
    }
  };
  const writeLeadText = (text) => {
    if (!text) return;
    if (leadInterrupted) step(`${lead.job.label} (continued)`, out);
    leadInterrupted = false;
    write(text);
  };
  /** The lead's new output; ended jobs are printed at its last line break, under which the lead's banner comes again. */
  const writeLead = () => {
    let text = lead.text.slice(lead.shown);
    lead.shown = lead.text.length;
    const cut = text.lastIndexOf('\n') + 1;
    if (cut > 0 && open.some((entry) => entry.done && entry !== lead)) {
      writeLeadText(text.slice(0, cut));
      flushEnded();
      text = text.slice(cut);
    }
    writeLeadText(text);
  };
  const promoteLead = () => {
    lead = open.find((entry) => !entry.done);
    if (!lead) return;
    step(lead.job.label, out);
    atLineStart = true;
    leadInterrupted = false;
    writeLead();
  };

  return new Promise((resolve, reject) => {
    let running = 0;
    let slotted = 0;
    const startReady = () => {
      for (let i = 0; i < waiting.length; ) {
        const job = waiting[i];
        const needed = (job.after ?? []).map((label) => [label, results.get(label)]);
        const failed = needed.find(([, result]) => result && result.code !== 0);
        if (failed) {
          waiting.splice(i, 1);
          results.set(job.label, { code: null, text: '', seconds: 0, notRun: `not run: ${failed[0]} failed` });
          i = 0; // the jobs after this one may not run either
        } else if (needed.every(([, result]) => result) && (job.unslotted || slotted < slots)) {
          waiting.splice(i, 1);
          start(job);
        } else {
          i += 1;
        }
      }
      if (running > 0) return;
      if (waiting.length === 0) resolve(results);
      else reject(new Error(`jobs that wait for each other: ${waiting.map((j) => j.label).join(', ')}`));
    };

    const start = (job) => {
      running += 1;
      if (!job.unslotted) slotted += 1;
      const entry = { job, text: '', shown: 0, done: false, started: Date.now() };
      open.push(entry);
      if (!lead) promoteLead();
      const [command, args] = typeof job.cmd === 'function' ? job.cmd() : job.cmd;
      const child = spawn(command, args, { cwd, env: job.env ?? env, stdio: ['ignore', 'pipe', 'pipe'] });
      const onData = (chunk) => {
        entry.text += chunk;
        if (entry === lead) writeLead();
      };
      for (const stream of [child.stdout, child.stderr]) {
        stream.setEncoding('utf8'); // a character split between two chunks stays whole
        stream.on('data', onData);
      }
      let finished = false;
      const finish = (code, extra = '') => {
        if (finished) return;
        finished = true;
        entry.text += extra;
        entry.done = true;
        const result = { code, text: entry.text, seconds: (Date.now() - entry.started) / 1000, startedAt: (entry.started - began) / 1000 };
        results.set(job.label, result);
        if (entry === lead) {
          writeLead();
          open.splice(open.indexOf(entry), 1);
          if (!atLineStart) write('\n');
          lead = undefined;
          flushEnded();
          promoteLead();
        } else if (atLineStart) {
          flushEnded();
        }
        running -= 1;
        if (!job.unslotted) slotted -= 1;
        startReady();
      };
      child.on('error', (error) => finish(127, `\n${error.message}\n`));
      child.on('close', (code, signal) => finish(code ?? (signal ? 128 : 1)));
    };

    startReady();
  });
}
