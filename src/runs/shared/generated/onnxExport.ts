// Generated from schemas/onnx-export.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.

/**
 * Written by `python -m seed_trainer export --format onnx` beside model.onnx, the tokenizer files and the chat template; read by the what-if rescorer, which rebuilds the trainer's teacher prompt from `prompt`.
 */
export interface OnnxExportMeta {
  /**
   * Always onnx.
   */
  format: 'onnx';
  /**
   * seed-trainer <version>.
   */
  exported_by: string;
  /**
   * The checkpoint directory exported, as given.
   */
  source: string;
  /**
   * ONNX opset of the graph.
   */
  opset: number;
  /**
   * The weights' and logits' type.
   */
  dtype: 'float32';
  /**
   * The graph's inputs: input_ids and attention_mask, int64 [batch, sequence].
   */
  inputs: {
    [k: string]: unknown;
  };
  /**
   * The graph's output: logits, float32 [batch, sequence, vocab].
   */
  outputs: {
    [k: string]: unknown;
  };
  /**
   * How position ids are computed (inside the graph, from the mask).
   */
  position_ids?: string;
  /**
   * The token id of left padding.
   */
  pad_token_id: number;
  /**
   * Token ids that end a response.
   */
  stop_token_ids: number[];
  /**
   * Rows of the logits; every token id must be below it.
   */
  vocab_size: number;
  /**
   * The model's max_position_embeddings: longest prompt + response it can score.
   */
  context_length: number | null;
  /**
   * The run the checkpoint lies in, null for a model directory outside any run.
   */
  run: null | {
    /**
     * run.json's id.
     */
    id: string;
    /**
     * The checkpoint directory's name (step-000003, model).
     */
    checkpoint: string;
  };
  /**
   * How the trainer built and scored the teacher prompt for this checkpoint.
   */
  prompt: {
    /**
     * run: the resolved config in run.json; defaults: the experiment defaults (no run).
     */
    from: 'run' | 'defaults';
    /**
     * The run's algorithm (seed, grpo_opsd, sdar, …).
     */
    algorithm: string;
    /**
     * H: previous observation/action pairs in each step prompt.
     */
    history: number;
    /**
     * Prompts longer than this are truncated (student: from the left; teacher: in the middle, after the skill block).
     */
    max_prompt_tokens: number;
    /**
     * Log-probs are of softmax(logits / temperature).
     */
    temperature: number;
    /**
     * β of the gate g = σ(β·Δ) as the algorithm applies it.
     */
    beta: number;
    /**
     * The prompt is one user turn through the chat template, with the generation prompt.
     */
    chat: {
      /**
       * The role of the one message.
       */
      role: 'user';
      /**
       * The assistant's turn is opened after it.
       */
      add_generation_prompt: true;
    };
    /**
     * The skill block H(h, s) and where it goes (seed_trainer/algo/skills.py).
     */
    skill: {
      /**
       * after_task_line: SEED's H(h, s); prefix: SDAR's static library (not rescorable).
       */
      insertion: 'after_task_line' | 'prefix';
      /**
       * First line of the block.
       */
      header: string;
      /**
       * Second line of the block; the bracketed skill follows.
       */
      instruction: string;
      /**
       * The block goes after the line holding this text…
       */
      task_marker: string;
      /**
       * …else right before this text, else at the end.
       */
      turn_marker: string;
      /**
       * A teacher prompt over max_prompt_tokens loses tokens just after the skill block.
       */
      truncation: 'middle_after_skill_block';
    };
  };
}
