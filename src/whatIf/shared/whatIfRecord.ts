// The records of a what-if file (schemas/whatif.schema.json), types only: the webviews import them too.

export interface WhatIfStepRecord {
  t: number;
  logp: number[];
  teacher_logp: number[];
  delta: number[];
  gate: number[];
  /** Trainer rescoring of a run whose OPD estimator subtracts from g: what it subtracts per token (½ or b(s)). */
  gate_baseline?: number[];
}

export interface WhatIfResultRecord {
  skill: string;
  export: string;
  path: 'onnxruntime-node' | 'trainer';
  provider: string;
  seconds: number;
  beta: number;
  temperature: number;
  steps: WhatIfStepRecord[];
}

export interface WhatIfFile {
  format: 1;
  trajectory: string;
  results: WhatIfResultRecord[];
}
