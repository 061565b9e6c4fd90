// The extension's labels of a run: tags.json in the run directory (docs/run-format.md §10), replaced atomically. The
// trainer never writes or reads it; the runs table does both.
import { writeFileAtomic } from './atomicWrite';
import { runPaths } from './runFiles';
import type { RunTags } from '../shared/types';

const MAX_TAGS = 64;
const MAX_TAG_LENGTH = 64;

/** A tag as stored: white space collapsed and trimmed; undefined when nothing (or too much) is left. */
function normalizeTag(text: string): string | undefined {
  const tag = text.replace(/\s+/g, ' ').trim();
  return tag.length > 0 && tag.length <= MAX_TAG_LENGTH ? tag : undefined;
}

/** The tags normalized, without duplicates, in order (at most MAX_TAGS). */
export function normalizeTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const text of tags) {
    const tag = normalizeTag(text);
    if (tag !== undefined && seen.size < MAX_TAGS) seen.add(tag);
  }
  return [...seen];
}

export async function writeTags(runDir: string, tags: readonly string[], source = 'vscode', now: Date = new Date()): Promise<RunTags> {
  const document: RunTags = { tags: normalizeTags(tags), time: now.toISOString(), source };
  await writeFileAtomic(runPaths(runDir).tags, `${JSON.stringify(document, null, 2)}\n`);
  return document;
}
