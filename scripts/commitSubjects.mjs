#!/usr/bin/env node
// Commit subjects at most 72 characters (the detail goes in the body), for every commit after SINCE: the ones before it
// were written before the rule. Exits 1 naming each longer subject.
import { spawnSync } from 'node:child_process';
import { repoRoot } from './setup.mjs';

const SINCE = 'a2045ff';
const LIMIT = 72;

const git = (args) => spawnSync('git', args, { cwd: repoRoot, encoding: 'utf8' });
if (git(['cat-file', '-e', `${SINCE}^{commit}`]).status !== 0) {
  console.log(`commit subjects: not checked: commit ${SINCE} is not in this clone (a shallow clone or an export)`);
  process.exit(0);
}
const log = git(['log', '--format=%h %s', `${SINCE}..HEAD`]);
if (log.status !== 0) {
  console.error(`commit subjects: git log failed: ${log.stderr.trim()}`);
  process.exit(1);
}
const lines = log.stdout.split('\n').filter(Boolean);
const long = lines.filter((line) => [...line.slice(line.indexOf(' ') + 1)].length > LIMIT);
for (const line of long) console.error(`commit subject over ${LIMIT} characters: ${line}`);
console.log(`commit subjects: ${lines.length} since ${SINCE}, ${long.length} over ${LIMIT} characters`);
process.exit(long.length ? 1 : 0);
