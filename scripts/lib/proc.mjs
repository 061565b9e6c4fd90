// Small helpers shared by the setup, test and demo scripts: run a command with inherited output, log a step.
import { spawnSync } from 'node:child_process';

export function step(message, out = process.stdout) {
  out.write(`\n\x1b[1m▶ ${message}\x1b[0m\n`);
}

/** Runs a command with inherited stdio; throws with the command line when it fails. */
export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) throw new Error(`${command}: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(`${[command, ...args].join(' ')} exited with ${result.status ?? result.signal}`);
  }
}

/** Runs a command and returns its trimmed stdout, or null when it cannot run or fails. */
export function capture(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.error || result.status !== 0) return null;
  return result.stdout.trim();
}
