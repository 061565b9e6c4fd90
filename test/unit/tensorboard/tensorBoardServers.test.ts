// "SEED: Open in TensorBoard" without vscode: which folder TensorBoard reads, and real TensorBoard servers started with
// the trainer's interpreter (answering, reused, ended), one without the module, and one that exits at once.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import {
  TENSORBOARD_REQUIREMENT,
  TensorBoardMissingError,
  TensorBoardServers,
  commonFolder,
  logdirFor,
  tensorBoardArgs,
  logdirSpec,
} from '../../../src/tensorboard/core/tensorBoardServers';
import { isProcessAlive, waitUntilGone } from '../../../src/runs/core/trainerProcess';
import { repoRoot, trainerPython } from '../support/repoPaths';

const scratch = mkdtempSync(path.join(tmpdir(), 'seed-tensorboard-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function run(name: string, withEvents = true): string {
  const dir = path.join(scratch, 'runs', name);
  mkdirSync(withEvents ? path.join(dir, 'tensorboard') : dir, { recursive: true });
  return dir;
}

test('logdir: one run → its tensorboard/ folder; several → the folder holding them; a run without events is named', () => {
  const a = run('20260301-120000-train-a');
  const b = run('20260302-120000-train-b');
  const bare = run('20260303-120000-train-bare', false);
  assert.equal(logdirFor([a]), path.join(a, 'tensorboard'));
  assert.equal(logdirFor([a, b]), path.join(scratch, 'runs'));
  assert.throws(() => logdirFor([a, bare]), (error: Error) => error.message.startsWith('20260303-120000-train-bare has no TensorBoard events') && error.message.includes('report_to: [tensorboard]'));
  assert.throws(() => logdirFor([]), /no run/);
  assert.equal(commonFolder(['/w/runs/x', '/w/other/y']), '/w');
  // A run that holds another run: the folder above both, so neither is hidden inside the other's series.
  assert.equal(commonFolder(['/w/runs/x', '/w/runs/x/nested']), '/w/runs');
  assert.deepEqual(tensorBoardArgs('/l', 6123).slice(0, 8), ['-m', 'tensorboard.main', '--logdir', '/l', '--host', '127.0.0.1', '--port', '6123']);
  assert.deepEqual(tensorBoardArgs('/l', 6123, 'x-1:/l/x').slice(0, 4), ['-m', 'tensorboard.main', '--logdir_spec', 'x-1:/l/x']);
});

test('logdir spec: each run named by its run id, one run or several; none where the spec cannot say it', () => {
  const a = run('20260301-120000-train-a');
  const b = run('20260302-120000-train-b');
  // One run is listed by its id, not "." (issue 41 item 6), and so is each of several.
  assert.equal(logdirSpec([a]), `20260301-120000-train-a:${path.join(a, 'tensorboard')}`);
  assert.equal(logdirSpec([a, b]), `20260301-120000-train-a:${path.join(a, 'tensorboard')},20260302-120000-train-b:${path.join(b, 'tensorboard')}`);
  // A comma in a path is the spec's separator, a colon in an id its name's end; one id twice would merge two runs.
  assert.equal(logdirSpec([a, path.join(scratch, 'a,b', '20260303-120000-train-c')]), undefined);
  assert.equal(logdirSpec([path.join(scratch, 'run:1')]), undefined);
  assert.equal(logdirSpec([a, path.join(scratch, 'elsewhere', path.basename(a))]), undefined);
  assert.equal(logdirSpec([path.join(scratch, 'x')]), undefined, 'one character and a colon would read as a Windows drive');
  assert.equal(logdirSpec([]), undefined);
});

test('the requirement offered for installation is the trainer\'s tensorboard extra', () => {
  const pyproject = readFileSync(path.join(repoRoot, 'trainer', 'pyproject.toml'), 'utf8');
  const extra = /^tensorboard = \["([^"]+)"\]$/m.exec(pyproject)?.[1];
  assert.equal(extra, TENSORBOARD_REQUIREMENT);
});

test('a real TensorBoard: answers on 127.0.0.1 with our logdir, is reused for the same folder, ends on dispose', async () => {
  const logdir = path.join(run('20260304-120000-train-live'), 'tensorboard');
  const lines: string[] = [];
  const servers = new TensorBoardServers({ onLine: (line) => lines.push(line) });
  try {
    const [first, again] = await Promise.all([servers.ensure(trainerPython(), logdir), servers.ensure(trainerPython(), logdir)]);
    assert.equal(again.pid, first.pid, 'two requests for one folder while it starts share one process');
    assert.match(first.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    // TensorBoard's own endpoint says which folder it reads.
    const answer = (await (await fetch(`${first.url}data/logdir`)).json()) as { logdir: string };
    assert.equal(answer.logdir, logdir);
    assert.equal((await servers.ensure(trainerPython(), logdir)).pid, first.pid, 'a running server is reused');
    assert.deepEqual(servers.running(), [first.pid]);
    assert.ok(lines.some((line) => line.includes('TensorBoard')), `its output reaches the log: ${lines.join(' | ')}`);
    servers.dispose();
    assert.ok(await waitUntilGone(() => isProcessAlive(first.pid), 10_000), 'dispose ends the process');
    await assert.rejects(fetch(first.url, { signal: AbortSignal.timeout(2_000) }));
  } finally {
    servers.dispose();
  }
});

test('a real TensorBoard over two of three runs in one folder lists those two, each by its run id', async () => {
  const [a, b, beside] = ['20260307-120000-train-a', '20260307-130000-train-b', '20260307-140000-train-c'].map((id) => run(id));
  // An event file is what TensorBoard looks for in a folder; an empty one is enough to list its run.
  for (const dir of [a!, b!, beside!]) writeFileSync(path.join(dir, 'tensorboard', 'events.out.tfevents.0.test'), '');
  const servers = new TensorBoardServers();
  try {
    const server = await servers.ensure(trainerPython(), logdirFor([a!, b!]), logdirSpec([a!, b!]));
    const listed = async (): Promise<string[]> => ((await (await fetch(`${server.url}data/runs`)).json()) as string[]).sort();
    let runs = await listed();
    for (const deadline = Date.now() + 60_000; runs.length < 2 && Date.now() < deadline; runs = await listed()) await new Promise((resolve) => setTimeout(resolve, 250));
    // TensorBoard names the events directly in a named folder `<name>/.`.
    assert.deepEqual(runs, ['20260307-120000-train-a/.', '20260307-130000-train-b/.']);
  } finally {
    servers.dispose();
  }
});

test('an interpreter without tensorboard gives TensorBoardMissingError; one that exits at once, its exit and output', async () => {
  // The trainer's interpreter with site-packages switched off (-S): a real Python where `tensorboard` does not import.
  const noSite = path.join(scratch, 'python-without-site');
  writeFileSync(noSite, `#!/bin/sh\nexec "${trainerPython()}" -S "$@"\n`);
  chmodSync(noSite, 0o755);
  const servers = new TensorBoardServers();
  const logdir = path.join(run('20260305-120000-train-missing'), 'tensorboard');
  await assert.rejects(servers.ensure(noSite, logdir), (error: Error) => error instanceof TensorBoardMissingError && error.message.includes(TENSORBOARD_REQUIREMENT));

  const broken = path.join(scratch, 'python-that-fails');
  writeFileSync(broken, '#!/bin/sh\necho "fatal: cannot start" >&2\nexit 3\n');
  chmodSync(broken, 0o755);
  await assert.rejects(servers.ensure(broken, logdir), (error: Error) => /did not start.*it ended \(exit 3\)/s.test(error.message) && error.message.includes('fatal: cannot start'));
  assert.deepEqual(servers.running(), []);
  servers.dispose();
});

test('disposed while it starts (the window closes): no TensorBoard is left behind', async () => {
  const servers = new TensorBoardServers();
  const starting = servers.ensure(trainerPython(), path.join(run('20260306-120000-train-closing'), 'tensorboard'));
  servers.dispose();
  await assert.rejects(starting, /window is closing/);
  assert.deepEqual(servers.running(), []);
});

test('npm run demo writes TensorBoard events: its Stage-2 run reports to TensorBoard, which setup installs', () => {
  const root = repoRoot;
  const stage2 = readFileSync(path.join(root, 'examples', 'household-demo-stage2.seed.yaml'), 'utf8');
  assert.match(stage2, /^report_to: \[tensorboard\]/m);
  const pyproject = readFileSync(path.join(root, 'trainer', 'pyproject.toml'), 'utf8');
  assert.match(/^test = \[[^\]]*\]/ms.exec(pyproject)?.[0] ?? '', /"tensorboard>=/);
  assert.match(readFileSync(path.join(root, 'scripts', 'setup.mjs'), 'utf8'), /trainer\[test\]/);
});
