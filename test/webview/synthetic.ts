// Synthetic trajectories for the webview tests and the render bench: any number of turns and tokens, deterministic
// (seeded), with every per-token array, in the stored form (base64) — what the host would send to a webview.
import { gateOfDelta } from '../../src/runs/shared/gate';
import { encodeFloat32, encodeInt32 } from '../unit/support/tokenEncoding';
import type { Trajectory, TrajectoryStep } from '../../src/runs/shared/types';

/** A small deterministic PRNG (mulberry32). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [' the', ' mug', ' counter', 'top', ' go', ' to', ' take', ' from', ' microwave', ' heat', ' put', ' in', ' cabinet', ' 1', ' 2', ',', '.', ' I', ' should', ' first', ' look', ' drawer', ' knife', ' sink', 'basin', ' clean', ' then', '\n'];

export interface SyntheticOptions {
  id?: string;
  turns?: number;
  tokensPerTurn?: number;
  seed?: number;
  /** Actions by turn (default: `go to place <t>`); null for an invalid step. */
  actions?: (string | null)[];
  taskId?: string;
  success?: boolean;
  teacher?: boolean;
  /** Δ is uniform in ±deltaWidth/2 nats (default 1.6); 0.032 keeps g = σ(5Δ) within 0.5 ± 0.02, as in the demo. */
  deltaWidth?: number;
}

export function syntheticStep(t: number, count: number, rand: () => number, action: string | null, teacher: boolean, deltaWidth = 1.6): TrajectoryStep {
  const text: string[] = [];
  const ids: number[] = [];
  const logp: number[] = [];
  const teacherLogp: number[] = [];
  const delta: number[] = [];
  const gate: number[] = [];
  const tail = action === null ? ['<', 'act', '>'] : ['<', 'action', '>', action, '</', 'action', '>'];
  for (let i = 0; i < count; i += 1) {
    const piece = i >= count - tail.length ? tail[i - (count - tail.length)]! : WORDS[Math.floor(rand() * WORDS.length)]!;
    text.push(piece);
    ids.push(1000 + Math.floor(rand() * 150000));
    const student = -Math.pow(rand(), 3) * 6;
    const d = (rand() - 0.5) * deltaWidth;
    logp.push(student);
    teacherLogp.push(student + d);
    delta.push(d);
    gate.push(gateOfDelta(d, 5));
  }
  const response = text.join('').replace('<act>', '');
  const tokens: TrajectoryStep['tokens'] = { count, ids: encodeInt32(ids), text, logp: encodeFloat32(logp) };
  if (teacher) Object.assign(tokens, { teacher_logp: encodeFloat32(teacherLogp), delta: encodeFloat32(delta), gate: encodeFloat32(gate) });
  return {
    t,
    observation: `You are in room ${t}. On the countertop ${t % 3} you see a mug, a knife and a plate. ${'Nothing happens. '.repeat(t % 4)}`,
    response,
    action,
    valid: action !== null,
    score: action === null ? 9.9 : 10,
    advantage: Math.round((rand() - 0.5) * 2000) / 1000,
    tokens,
  };
}

export function syntheticTrajectory(options: SyntheticOptions = {}): Trajectory {
  const turns = options.actions?.length ?? options.turns ?? 50;
  const count = options.tokensPerTurn ?? 512;
  const rand = random(options.seed ?? 1);
  const steps: TrajectoryStep[] = [];
  for (let t = 0; t < turns; t += 1) {
    const action = options.actions ? options.actions[t]! : `go to place ${t}`;
    steps.push(syntheticStep(t, count, rand, action, options.teacher ?? true, options.deltaWidth));
  }
  const success = options.success ?? true;
  return {
    id: options.id ?? 'it-000007-0001',
    phase: 'train',
    update: 7,
    task: { id: options.taskId ?? 'household/heat-mug-9', type: 'heat', description: 'heat some mug and put it in the cabinet.', split: 'train' },
    group: 0,
    sample: 0,
    success,
    reward: success ? 1 : 0,
    length: turns,
    skill: { text: 'For heat tasks, take the object first, then heat it.', summary: 'Heated the mug.', valid: true, source: 'self', reason: null },
    steps,
  };
}
