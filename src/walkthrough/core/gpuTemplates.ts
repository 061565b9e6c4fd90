// The templates the walkthrough's "Train on your GPU" step offers: every experiment template that does not pin the
// CPU (`model.device: cpu`). No `vscode` import.
import { readFileSync } from 'node:fs';
import { listTemplates, type ExperimentTemplate } from '../../experiments/core/templates';

const PINS_CPU = /^\s+device:\s*cpu\b/m;

export function gpuTemplates(dir: string): ExperimentTemplate[] {
  return listTemplates(dir).filter((template) => !PINS_CPU.test(readFileSync(template.file, 'utf8')));
}
