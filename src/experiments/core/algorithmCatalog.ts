// The Stage-2 algorithms as the trainer describes them (trainer/seed_trainer/algo/variants.py, exported into the
// experiment schema as `x-algorithms` on `algorithm`): names, labels, summaries and what each runs. There is no second
// list here: a new algorithm in the trainer reaches the Train picker and completion with the regenerated schema.
// No `vscode` import.
import type { ExperimentSchema } from './experimentSchema';

export interface AlgorithmEntry {
  /** The value of `algorithm` in an experiment file, e.g. grpo_opsd. */
  name: string;
  /** The name people read, e.g. GRPO+OPSD. */
  label: string;
  /** What it does, one line. */
  summary: string;
  /** Weight of the policy-gradient loss (0: distillation only). */
  pgCoef: number;
  /** Runs the teacher pass and the OPD term. */
  teacher: boolean;
  /** g = σ(β·Δ); false: β = 0, every gate is 0.5. */
  gated: boolean;
  /** Who writes the teacher's skill: the policy itself, a static bank, or nobody. */
  skills: 'self' | 'static' | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function entryOf(value: unknown): AlgorithmEntry | undefined {
  if (!isRecord(value)) return undefined;
  const { name, label, summary, pg_coef: pgCoef, teacher, gated, skills } = value;
  if (typeof name !== 'string' || typeof label !== 'string' || typeof summary !== 'string' || typeof pgCoef !== 'number') return undefined;
  if (typeof teacher !== 'boolean' || typeof gated !== 'boolean' || !(skills === 'self' || skills === 'static' || skills === null)) return undefined;
  return { name, label, summary, pgCoef, teacher, gated, skills };
}

/**
 * The algorithms the schema carries, in the trainer's order. Only names the schema's `algorithm` accepts are kept, and
 * entries that do not have the expected shape are left out (a schema from another trainer version).
 */
export function algorithmCatalog(schema: ExperimentSchema): AlgorithmEntry[] {
  const field = schema.schemaAt(['algorithm']);
  const raw = field?.['x-algorithms'];
  if (!Array.isArray(raw)) return [];
  const accepted = field?.enum;
  return (raw as unknown[]).map(entryOf).filter((entry): entry is AlgorithmEntry => entry !== undefined && (!accepted || accepted.includes(entry.name)));
}

/** The algorithm of an experiment that names none (the schema's default). */
export function defaultAlgorithm(schema: ExperimentSchema): string {
  const value = schema.fieldInfo(['algorithm'])?.default;
  return typeof value === 'string' ? value : 'seed';
}
