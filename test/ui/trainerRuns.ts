// The run folders a UI test's trainings wrote in its workspace, and the end of their trainers (a test that failed or
// stopped early leaves them running: their process groups, from run.json's pid).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { CodeServerSession } from '../integration/codeServerSession';

export function runDirs(session: CodeServerSession): string[] {
  const root = path.join(session.workspace, 'runs');
  return existsSync(root) ? readdirSync(root).map((name) => path.join(root, name)) : [];
}

export function killTrainers(session: CodeServerSession): void {
  for (const dir of runDirs(session)) {
    try {
      const { pid } = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as { pid?: number };
      if (pid) process.kill(-pid, 'SIGKILL');
    } catch {
      // gone, or never written
    }
  }
}
