// Runs commands side by side on a fixed number of slots, for the setup and test scripts: while one suite waits (on a
// browser, a subprocess, the disk) or holds only one core, another runs. Each job's output stays in one piece in the
// log: one job at a time (the lead, the earliest started of those running) streams its output as it comes; the
// others collect theirs, and a job that finished is printed whole, under its ▶ banner, at the next line break of the
// lead. When the lead ends, the next earliest-started job prints what it has so far and streams from there.
import { spawn } from 'node:child_process';
import { step } from './proc.mjs';

/**
 * @typedef {{ label: string, command: string, args: string[], after?: string[] }} Job
 *   `after`: labels of jobs that must have ended (passed or not) before this one starts.
 * @typedef {{ code: number, text: string, seconds: number }} JobResult
 */

/**
 * Runs `jobs` in their order, at most `slots` at a time, each as soon as a slot is free and its `after` jobs have
 * ended. Resolves with a Map label → JobResult once all have ended.
 * @param {Job[]} jobs
 * @param {{ slots: number, cwd: string, env: NodeJS.ProcessEnv }} options
 */
export function runJobs(jobs, { slots, cwd, env }) {
  const labels = new Set(jobs.map((job) => job.label));
  for (const job of jobs) {
    const unknown = (job.after ?? []).filter((label) => !labels.has(label));
    if (unknown.length) throw new Error(`job "${job.label}" waits for unknown job(s): ${unknown.join(', ')}`);
  }
  const waiting = [...jobs];
  const ended = new Set();
  const results = new Map();
  /** Running or ended but not yet printed, in start order: { job, text, shown, done, started } */
  const open = [];
  let lead;
  let atLineStart = true; // the log's last character is a line break
  let leadInterrupted = false; // other jobs' output was printed since the lead's last

  const write = (text) => {
    if (!text) return;
    process.stdout.write(text);
    atLineStart = text.endsWith('\n');
  };
  /** Prints every ended job that is not the lead, whole, in start order. */
  const flushEnded = () => {
    for (const entry of [...open]) {
      if (!entry.done || entry === lead) continue;
      step(entry.job.label);
      write(entry.text);
      if (!atLineStart) write('\n');
      open.splice(open.indexOf(entry), 1);
      leadInterrupted = lead !== undefined;
    }
  };
  const writeLeadText = (text) => {
    if (!text) return;
    if (leadInterrupted) step(`${lead.job.label} (continued)`);
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
    step(lead.job.label);
    atLineStart = true;
    leadInterrupted = false;
    writeLead();
  };

  return new Promise((resolve, reject) => {
    let running = 0;
    const startReady = () => {
      for (let i = 0; i < waiting.length && running < slots; ) {
        const job = waiting[i];
        if ((job.after ?? []).every((label) => ended.has(label))) {
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
      const entry = { job, text: '', shown: 0, done: false, started: Date.now() };
      open.push(entry);
      if (!lead) promoteLead();
      const child = spawn(job.command, job.args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
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
        const result = { code, text: entry.text, seconds: (Date.now() - entry.started) / 1000 };
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
        ended.add(job.label);
        running -= 1;
        startReady();
      };
      child.on('error', (error) => finish(127, `\n${error.message}\n`));
      child.on('close', (code, signal) => finish(code ?? (signal ? 128 : 1)));
    };

    startReady();
  });
}
