// The learning benchmark's 19 runs (bench/results/learning.json: GRPO and SEED × 5 seeds, SDAR, GRPO+OPSD and SEED
// with the oracle analyzer × 3) as compact run directories, written in test setup: run.json, events, 100 update rows
// (a training success that moves from the run's first-10 mean to its last-10 mean, and its final diagnostics), an eval
// row per split at every evaluated update (the benchmark's curve), and eval/<split>.json with the 120 real per-task
// outcomes of the final evaluation (task ids and lengths are made up: the benchmark keeps only a hash of the tasks).
// No trajectories. Every file validates against the schemas (test/unit/runsTable/runsTable.test.ts checks them with
// checkRun).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const TYPES = ['pick_and_place', 'clean', 'heat', 'cool', 'examine', 'pick_two'];

interface BenchRun {
  status: string;
  updates_done: number;
  curve: Record<string, Array<[number, number]>>;
  final_outcomes: Record<string, { success: string }>;
  train_success_first10: number;
  train_success_last10: number;
  seconds_per_update: number;
  diagnostics?: Record<string, unknown>;
}

export interface WrittenRun {
  dir: string;
  variant: string;
  seed: number;
  algorithm: string;
  final: Record<string, { successes: number; n: number }>;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Writes the 19 runs under `<workspace>/runs/` and returns them in the benchmark's order. */
export function writeBenchmarkRuns(workspace: string, repoRoot: string): WrittenRun[] {
  const learning = JSON.parse(readFileSync(path.join(repoRoot, 'bench', 'results', 'learning.json'), 'utf8')) as {
    settings: { rollout: Record<string, unknown>; rl: Record<string, unknown>; opd: Record<string, unknown>; eval: Record<string, unknown> };
    algorithms: Record<string, Record<string, BenchRun>>;
  };
  const template = JSON.parse(readFileSync(path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid', 'run.json'), 'utf8')) as Record<string, unknown>;
  const written: WrittenRun[] = [];
  let index = 0;
  for (const [variant, seeds] of Object.entries(learning.algorithms)) {
    for (const [seedText, run] of Object.entries(seeds)) {
      const seed = Number(seedText);
      const algorithm = variant === 'seed_oracle' ? 'seed' : variant;
      const name = `bench-${variant.replace(/_/g, '-')}-s${seed}`;
      const start = Date.UTC(2026, 10, 1, 8) + index * 3_600_000;
      index += 1;
      const id = `${iso(start).slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-train-${name}`;
      const dir = path.join(workspace, 'runs', id);
      mkdirSync(path.join(dir, 'eval'), { recursive: true });
      const updates = run.updates_done;
      const time = (step: number): string => iso(start + Math.round(step * run.seconds_per_update * 1000));
      const config = {
        name,
        seed,
        runs_dir: 'runs',
        algorithm,
        updates,
        model: { path: 'builtin:household-tiny', dtype: 'float32', device: 'cpu' },
        environment: { name: 'household' },
        analyzer: { kind: variant === 'seed_oracle' ? 'oracle' : 'self' },
        rollout: learning.settings.rollout,
        rl: learning.settings.rl,
        opd: learning.settings.opd,
        eval: learning.settings.eval,
      };
      const manifest = {
        ...template,
        id,
        name,
        config,
        stage: 'train',
        algorithm,
        status: run.status,
        started: iso(start),
        ended: time(updates),
        heartbeat: time(updates),
        progress: { step: updates, total: updates, unit: 'update' },
        experiment: { path: `../../${name}.seed.yaml`, sha256: '0'.repeat(64) },
      };
      writeFileSync(path.join(dir, 'run.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      writeFileSync(
        path.join(dir, 'events.jsonl'),
        [
          { time: iso(start), type: 'started', message: `train ${name}`, stage: 'train', pid: 4242 },
          { time: time(updates), type: 'finished', message: run.status, status: run.status },
        ].map((e) => `${JSON.stringify(e)}\n`).join(''),
      );
      const rows: string[] = [];
      const evalRows = new Map<number, Array<[string, number]>>();
      for (const [split, curve] of Object.entries(run.curve)) for (const [step, success] of curve) evalRows.set(step, [...(evalRows.get(step) ?? []), [split, success]]);
      const pushEval = (step: number): void => {
        for (const [split, success] of evalRows.get(step) ?? []) rows.push(JSON.stringify({ step, time: time(step), kind: 'eval', split, 'success/overall': success }));
      };
      pushEval(0);
      for (let step = 1; step <= updates; step += 1) {
        const t = (step - 1) / Math.max(1, updates - 1);
        const wobble = 0.06 * Math.sin(step * 1.7 + seed);
        const success = Math.min(1, Math.max(0, run.train_success_first10 + t * (run.train_success_last10 - run.train_success_first10) + wobble));
        const row: Record<string, unknown> = { step, time: time(step), kind: 'update', 'success/overall': Math.round(success * 32) / 32, 'episode/length': 12 - 4 * t, 'loss/pg': 0.002 * Math.cos(step), 'time/step': run.seconds_per_update };
        if (step === updates) for (const [key, value] of Object.entries(run.diagnostics ?? {})) if (key.includes('/') && typeof value === 'number') row[key] = value;
        rows.push(JSON.stringify(row));
        pushEval(step);
      }
      writeFileSync(path.join(dir, 'metrics.jsonl'), `${rows.join('\n')}\n`);
      const final: WrittenRun['final'] = {};
      for (const [split, { success }] of Object.entries(run.final_outcomes)) {
        const episodes = [...success].map((bit, i) => {
          const type = TYPES[i % TYPES.length]!;
          return { task: { id: `household/${type}-${split}-${Math.floor(i / TYPES.length)}`, type, split }, success: bit === '1', reward: bit === '1' ? 1 : 0, length: bit === '1' ? 4 + ((i * 7) % 9) : 20 };
        });
        const summary = (list: typeof episodes) => ({ success: list.filter((e) => e.success).length / list.length, n: list.length, mean_length: list.reduce((s, e) => s + e.length, 0) / list.length });
        const byType: Record<string, ReturnType<typeof summary>> = {};
        for (const type of TYPES) byType[type] = summary(episodes.filter((e) => e.task.type === type));
        const report = { split, step: updates, checkpoint: null, time: time(updates), overall: summary(episodes), by_task_type: byType, episodes };
        writeFileSync(path.join(dir, 'eval', `${split}.json`), `${JSON.stringify(report, null, 2)}\n`);
        final[split] = { successes: episodes.filter((e) => e.success).length, n: episodes.length };
      }
      written.push({ dir, variant, seed, algorithm, final });
    }
  }
  return written;
}
