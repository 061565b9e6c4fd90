// npm test's job runner (scripts/lib/jobs.mjs): suites side by side on a fixed number of slots, each started once
// the jobs it needs have passed, never when one of them failed, and each job's output in one piece in the log.
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { repoRoot } from '../support/repoPaths';

type Command = [string, string[]];
interface Job { label: string; cmd: Command | (() => Command); after?: string[]; unslotted?: boolean }
interface JobResult { code: number | null; text: string; seconds: number; notRun?: string }
interface Module {
  runJobs(jobs: Job[], options: { slots: number; cwd: string; env: NodeJS.ProcessEnv; out: { write(text: string): unknown } }): Promise<Map<string, JobResult>>;
}

async function load(): Promise<Module> {
  return (await import(pathToFileURL(path.join(repoRoot, 'scripts', 'lib', 'jobs.mjs')).href)) as Module;
}

/** A job that prints `lines` lines (`<label> <i>`), `pauseMs` apart, with its start and end times, then exits `code`. */
function job(label: string, lines: number, pauseMs: number, options: { code?: number; after?: string[]; unslotted?: boolean } = {}): Job {
  const script = `
    const say = (text) => process.stdout.write(text + '\\n');
    say('start ' + Date.now());
    let i = 0;
    const next = () => {
      if (i === ${lines}) { say('end ' + Date.now()); process.exit(${options.code ?? 0}); }
      say('${label} ' + i++);
      setTimeout(next, ${pauseMs});
    };
    next();`;
  return { label, cmd: [process.execPath, ['-e', script]], after: options.after, unslotted: options.unslotted };
}

async function run(jobs: Job[], slots: number): Promise<{ results: Map<string, JobResult>; log: string }> {
  const { runJobs } = await load();
  let log = '';
  const results = await runJobs(jobs, { slots, cwd: repoRoot, env: process.env, out: { write: (text: string) => (log += text) } });
  return { results, log };
}

/** [start, end] in ms of each job, from what it printed. */
function span(result: JobResult): [number, number] {
  return [Number(/^start (\d+)$/m.exec(result.text)![1]), Number(/^end (\d+)$/m.exec(result.text)![1])];
}

const overlaps = (a: [number, number], b: [number, number]): boolean => a[0] < b[1] && b[0] < a[1];

test('at most `slots` jobs at once, unslotted ones beside them; a job waits for the ones it comes after', async () => {
  const { results } = await run(
    [job('install', 4, 150, { unslotted: true }), job('a', 3, 150), job('b', 3, 150), job('c', 3, 150), job('d', 1, 10, { after: ['install', 'a'] })],
    2,
  );
  for (const label of ['install', 'a', 'b', 'c', 'd']) assert.equal(results.get(label)?.code, 0, label);
  const [install, a, b, c, d] = ['install', 'a', 'b', 'c', 'd'].map((label) => span(results.get(label)!));
  assert.ok(overlaps(a!, b!), 'a and b share the two slots');
  assert.ok(overlaps(install!, a!) && overlaps(install!, b!), 'the unslotted job runs beside them');
  assert.ok(c![0] >= Math.min(a![1], b![1]), 'c waits for a free slot');
  assert.ok(d![0] >= Math.max(install![1], a![1]), 'd starts after install and a');
});

test('a job after a failed one does not run, nor the jobs after it; the others do', async () => {
  const { results, log } = await run([job('build', 1, 10, { code: 2 }), job('suite', 1, 10, { after: ['build'] }), job('later', 1, 10, { after: ['suite'] }), job('lint', 1, 10)], 1);
  assert.equal(results.get('build')?.code, 2);
  assert.deepEqual(results.get('suite'), { code: null, text: '', seconds: 0, notRun: 'not run: build failed' });
  assert.equal(results.get('later')?.notRun, 'not run: suite failed');
  assert.equal(results.get('lint')?.code, 0);
  assert.doesNotMatch(log, /▶ suite|▶ later/);
});

test('each job prints under its own banner: the lead streams, the others come whole at its line breaks', async () => {
  const { results, log } = await run([job('long', 12, 60), job('short1', 3, 20), job('short2', 3, 20)], 2);
  // The log split at the banners: each block holds one job's lines, and every line of every job is there once.
  const ESC = String.fromCharCode(27); // the banners are bold: ESC[1m▶ label ESC[0m
  const blocks = log.split(`\n${ESC}[1m▶ `).slice(1).map((block) => {
    const [banner, ...lines] = block.split('\n');
    return { label: banner!.replace(`${ESC}[0m`, '').replace(/ \(continued\)$/, ''), lines: lines.filter(Boolean) };
  });
  assert.deepEqual(blocks[0]?.label, 'long', 'the first job started leads');
  for (const [label, result] of results) {
    const printed = blocks.filter((b) => b.label === label).flatMap((b) => b.lines);
    assert.deepEqual(printed, result.text.split('\n').filter(Boolean), `${label}'s lines, in order, under its banners`);
    if (label !== 'long') assert.equal(blocks.filter((b) => b.label === label).length, 1, `${label} in one piece`);
  }
  assert.ok(blocks.findIndex((b) => b.label === 'short1') < blocks.map((b) => b.label).lastIndexOf('long'), 'a short job is printed while the lead still runs');
});

test('a job that waits for a job nobody runs is refused before anything starts', async () => {
  await assert.rejects(run([job('a', 1, 10, { after: ['nothing'] })], 1), /job "a" waits for unknown job\(s\): nothing/);
});
