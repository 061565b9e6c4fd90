// Generated from schemas/whatif.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.

/**
 * Written by the trajectory viewer's "What if…" next to the run (and printed by `python -m seed_trainer rescore`): the gates one trajectory's response tokens get under other skills, from an ONNX export or through the trainer. Indented JSON, one number per line, so git diffs show which tokens changed.
 */
export interface WhatIfFile {
  /**
   * Version of this file's format.
   */
  format: 1;
  /**
   * The trajectory's id in the run.
   */
  trajectory: string;
  /**
   * One entry per skill tried, in the order they were scored.
   */
  results: {
    /**
     * The skill text scored.
     */
    skill: string;
    /**
     * The weights scored with: the ONNX export folder (onnxruntime-node) or the checkpoint / model folder (trainer), relative to the run directory when inside it.
     */
    export: string;
    /**
     * Which scorer ran.
     */
    path: 'onnxruntime-node' | 'trainer';
    /**
     * Its execution provider or device (cpu, cuda).
     */
    provider: string;
    /**
     * Wall time of the rescoring (through the trainer: of the whole process, loading the weights included).
     */
    seconds: number;
    /**
     * β of the gate g = σ(β·Δ) (the run's, as the export or the trainer read them).
     */
    beta: number;
    /**
     * Log-probs are of softmax(logits / temperature) (the run's, as the export or the trainer read them).
     */
    temperature: number;
    /**
     * One entry per step of the trajectory, in order.
     */
    steps: {
      /**
       * The step's t.
       */
      t: number;
      /**
       * ℓ^θ: student log-prob of each response token.
       */
      logp: number[];
      /**
       * ℓ^skill: log-prob of each response token under the teacher prompt with this skill.
       */
      teacher_logp: number[];
      /**
       * Δ = ℓ^skill − ℓ^θ.
       */
      delta: number[];
      /**
       * g = σ(β·Δ).
       */
      gate: number[];
      /**
       * Optional (trainer rescoring of a run whose opd.estimator subtracts from g): what that estimator subtracts at each token, as the trainer records it in the trajectory (centred: ½; baseline and expected: b(s) = Σ_v π_old(v|s)·g(v) under this skill). g − gate_baseline is the weight the update would give the sampled token.
       */
      gate_baseline?: number[];
    }[];
  }[];
}
