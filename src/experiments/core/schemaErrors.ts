// How a schema violation is worded (experimentSchema.ts): ajv's errors condensed to the ones that help, and the known
// name nearest a misspelt one, for "did you mean". No `vscode` import.
import type { ErrorObject } from 'ajv/dist/2020';

/**
 * ajv with allErrors reports every failed branch of an anyOf. Keep what helps: when a branch failed deeper inside
 * the value (e.g. `model.lora.r` of the mapping branch), those errors; otherwise the one anyOf error, whose message
 * lists the alternatives. Linear: one set of the paths that have errors below them.
 */
export function condenseErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const isAlternative = (e: ErrorObject): boolean => e.keyword === 'anyOf' || e.keyword === 'oneOf';
  const alternativePaths = new Set(errors.filter(isAlternative).map((e) => e.instancePath));
  const hasDeeper = new Set<string>();
  for (const e of errors) {
    for (let cut = e.instancePath.lastIndexOf('/'); cut > -1; cut = e.instancePath.lastIndexOf('/', cut - 1)) {
      const ancestor = e.instancePath.slice(0, cut);
      if (hasDeeper.has(ancestor)) break;
      hasDeeper.add(ancestor);
      if (cut === 0) break;
    }
  }
  const seen = new Set<string>();
  return errors.filter((e) => {
    if (e.schemaPath.startsWith('#/allOf/')) return true; // rules between fields: reported as such
    // Branch errors at the same value (`must be null`) say less than the alternatives; an alternatives error says
    // less than the errors deeper inside the value (their schemaPath may be that of a referenced definition).
    if (isAlternative(e) ? hasDeeper.has(e.instancePath) : alternativePaths.has(e.instancePath)) return false;
    const key = `${e.instancePath}|${e.keyword}|${JSON.stringify(e.params)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The code of a problem whose message says "did you mean `X`?" (a misspelt key, enum value or environment): the
 * editor's quick fix replaces the marked text with X (src/experiments/didYouMeanActions.ts). */
export const DID_YOU_MEAN = 'did-you-mean';

/** The suggestion a did-you-mean message names, e.g. `group_size` in "… (did you mean `group_size`?)". */
export function suggestionOf(message: string): string | undefined {
  return /\(did you mean `([^`]+)`\?\)/.exec(message)?.[1];
}

/** The known key nearest to a misspelt one (edit distance ≤ 2), for "did you mean". */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    if (Math.abs(word.length - candidate.length) >= bestDistance) continue; // the distance is at least that
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    let previous = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const current = row[j] ?? 0;
      row[j] = Math.min(current + 1, (row[j - 1] ?? 0) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] ?? 0;
}
