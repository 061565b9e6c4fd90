// Whether a live process owns a run directory: the trainer holds an exclusive flock on `<run>/lock` for its lifetime
// and the kernel drops it when the process dies (seed_trainer/runlog/ownership.py). Node cannot test a flock, but on
// Linux /proc/locks lists every held one by device and inode, so the extension reads the lock without taking it (a
// probe that took it could make a starting trainer fail). Elsewhere the answer is `unknown` and callers fall back to
// the pid in run.json.
import { readFileSync, statSync } from 'node:fs';
import { RUN_FILES } from './runFiles';
import path from 'node:path';

export type Ownership = 'owned' | 'free' | 'unknown';

/** `fe:00:2149253`: how /proc/locks names a file (hex major and minor of its device, decimal inode). */
function lockTableKey(dev: number, ino: number): string {
  const major = ((dev >> 8) & 0xfff) | (Math.floor(dev / 2 ** 32) & ~0xfff);
  const minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
  const hex = (n: number) => n.toString(16).padStart(2, '0');
  return `${hex(major)}:${hex(minor)}:${ino}`;
}

/** Reads the lock state of a run directory; `procLocks` is for tests (default: /proc/locks on Linux). */
export function runOwnership(runDir: string, options: { procLocks?: string; platform?: NodeJS.Platform } = {}): Ownership {
  const lockFile = path.join(runDir, RUN_FILES.lock);
  let key: string;
  try {
    const stat = statSync(lockFile);
    key = lockTableKey(stat.dev, stat.ino);
  } catch {
    return 'unknown'; // no lock file: written by a trainer from before the lock, only its pid can tell
  }
  let table: string;
  if (options.procLocks !== undefined) {
    table = options.procLocks;
  } else {
    if ((options.platform ?? process.platform) !== 'linux') return 'unknown';
    try {
      table = readFileSync('/proc/locks', 'ascii');
    } catch {
      return 'unknown';
    }
  }
  const held = table.split('\n').some((line) => {
    const fields = line.trim().split(/\s+/);
    return fields.includes('FLOCK') && fields.includes(key);
  });
  return held ? 'owned' : 'free';
}
