// The extension's one write into a running run: the `control` file asking the trainer to stop. The trainer checks it
// at every step boundary, then checkpoints, sets status `stopped` and exits (docs/run-format.md §control).
import { writeFileAtomic } from './atomicWrite';
import { runPaths } from './runFiles';
import type { ControlRequest } from '../shared/types';

export async function requestStop(runDir: string, source = 'vscode', now: Date = new Date()): Promise<ControlRequest> {
  const request: ControlRequest = { request: 'stop', time: now.toISOString(), source };
  await writeFileAtomic(runPaths(runDir).control, `${JSON.stringify(request, null, 2)}\n`);
  return request;
}
