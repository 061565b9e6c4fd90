// Generated from schemas/run.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.
import type { Timestamp } from './common';
import type { RecordedExperiment } from './experiment';

/**
 * The manifest of one run directory, replaced atomically (temp file + rename) whenever it changes. docs/run-format.md is the authority.
 */
export interface RunManifest {
  /**
   * Major version of the run-directory format. Readers refuse a version they do not know, with a message saying which versions they read.
   */
  format_version: 1;
  /**
   * Run identifier, equal to the run directory's name.
   */
  id: string;
  /**
   * Human-readable name (the experiment's `name`), shown in the runs tree.
   */
  name: string;
  /**
   * The experiment file this run was started from.
   */
  experiment: {
    /**
     * Path of the experiment file relative to the run directory (POSIX separators), or absolute when no relative path exists (another drive).
     */
    path: string;
    /**
     * SHA-256 (lower-case hex) of the experiment file's bytes when the run started.
     */
    sha256: string;
  };
  /**
   * The resolved experiment (every default filled in), as the trainer used it; valid against experiment.schema.json.
   */
  config: RecordedExperiment;
  /**
   * What this run does: `collect` (Stage-1 rollouts + analysis → skills.jsonl), `sft` (Stage-1 hindsight-skill SFT), `train` (Stage-2 updates), `eval`.
   */
  stage: 'collect' | 'sft' | 'train' | 'eval';
  /**
   * Stage-2 algorithm of the experiment (config.algorithm).
   */
  algorithm: 'seed' | 'grpo' | 'grpo_opsd' | 'opsd' | 'sdar';
  /**
   * running → (stopping →) stopped | failed | completed. A reader that finds `running` or `stopping` with a dead pid shows the run as interrupted; the file is not rewritten by readers.
   */
  status: 'running' | 'stopping' | 'stopped' | 'failed' | 'completed';
  /**
   * Process id of the trainer (rank 0 under torchrun) on `host`.
   */
  pid: number;
  /**
   * Host name of the machine the trainer runs on; a pid is only meaningful there.
   */
  host: string;
  /**
   * When the run started (UTC).
   */
  started: Timestamp;
  /**
   * When the run reached a final status (UTC); null or absent while running.
   */
  ended?: Timestamp | null;
  /**
   * Optional. Last time the trainer rewrote the manifest (at least once per update/SFT step).
   */
  heartbeat?: Timestamp;
  /**
   * Optional. Where the stage stands, for the runs tree: `step` of `total` (updates, SFT steps, collected tasks).
   */
  progress?: {
    /**
     * Units done.
     */
    step: number;
    /**
     * Units planned; null when unknown.
     */
    total: number | null;
    /**
     * What is counted: update, sft_step, task, episode.
     */
    unit?: string;
  };
  /**
   * Optional. One-line reason when status is `failed`.
   */
  error?: string | null;
  /**
   * Optional. Commit of the experiment's git repository (HEAD) when the run started; null when not in a repository.
   */
  git_commit?: string | null;
  /**
   * Optional. True when the repository had uncommitted changes.
   */
  git_dirty?: boolean | null;
  /**
   * Optional. The run this one builds on (e.g. the SFT run whose checkpoint a `train` run starts from).
   */
  parent?: {
    /**
     * Id of the parent run.
     */
    run?: string;
    /**
     * Path of the checkpoint used, relative to this run directory or absolute.
     */
    checkpoint?: string;
  } | null;
  /**
   * Optional. The evaluations of the policy this run starts from (before/after): split → the eval run's directory, relative to this run directory with / separators.
   */
  baseline_evals?: {
    [k: string]: string;
  } | null;
  /**
   * Software versions of the trainer process.
   */
  versions: {
    /**
     * seed_trainer.__version__.
     */
    trainer: string;
    /**
     * Python version, e.g. 3.11.7.
     */
    python: string;
    /**
     * torch.__version__ (with its local tag, e.g. 2.13.0+cu128); null when torch is not importable.
     */
    torch?: string | null;
    /**
     * transformers version; null when not installed.
     */
    transformers?: string | null;
  };
  /**
   * Where the policy runs.
   */
  device: {
    /**
     * Device type.
     */
    kind: 'cuda' | 'cpu' | 'mps';
    /**
     * Device name (torch.cuda.get_device_name, or the CPU model / `cpu`).
     */
    name: string;
    /**
     * Accelerators used (world size under torchrun); 0 on CPU.
     */
    count: number;
    /**
     * Optional. Memory of one accelerator in bytes.
     */
    memory_bytes?: number | null;
  };
}
