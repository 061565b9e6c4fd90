// What a hindsight skill is about: does it name its own trajectory's task? The same rule as the trainer's per-update
// metric (trainer/seed_trainer/algo/skill_relevance.py; the cases both check: test/fixtures/skills/relevance-cases.json):
// the task's terms are the content words of its description (the object and the receptacle or lamp), without the
// verbs, articles and the transform's adjective every task of a type shares; words compare whole and lower-cased.
// The viewer and the skill review flag a skill that contradicts its trajectory with it. No DOM, no `vscode`.

const FUNCTION_WORDS = new Set('a an the some two and it them in on at under with into onto to of put find look examine place take'.split(' '));
const TRANSFORM_WORDS = new Set('clean cleaned heat heated hot warm cool cooled cold chill chilled'.split(' '));

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);
}

/** The content words of a task sentence, in order: `put a hot apple in fridge.` → [apple, fridge]. */
export function taskTerms(description: string): string[] {
  const seen: string[] = [];
  for (const word of description.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (!FUNCTION_WORDS.has(word) && !TRANSFORM_WORDS.has(word) && !seen.includes(word)) seen.push(word);
  }
  return seen;
}

/** Every term of the task is in the summary (a task without terms is named by any summary). */
export function summaryNamesTask(summary: string, description: string): boolean {
  const found = words(summary);
  return taskTerms(description).every((term) => found.has(term));
}

/** The skill names the task's object or its receptacle (a task without terms: true). */
export function skillNamesTarget(skill: string, description: string): boolean {
  const terms = taskTerms(description);
  const found = words(skill);
  return terms.length === 0 || terms.some((term) => found.has(term));
}

/**
 * Why a valid skill looks like it was written about another episode, as sentences; empty when nothing contradicts
 * it. Besides the rule above: a summary whose "after N action(s)" differs from the episode's length.
 */
export function skillMismatches(skill: { text?: string | null; summary?: string | null }, description: string, steps: number): string[] {
  const problems: string[] = [];
  const terms = taskTerms(description);
  if (skill.summary && !summaryNamesTask(skill.summary, description)) {
    problems.push(`The episode summary does not name this task's ${terms.filter((term) => !words(skill.summary!).has(term)).join(' and ')}.`);
  }
  if (skill.text && !skillNamesTarget(skill.text, description)) problems.push(`The skill names neither ${terms.join(' nor ')}.`);
  const counted = /after (\d+) action\(s\)/.exec(skill.summary ?? '');
  if (counted && Number(counted[1]) !== steps) problems.push(`The summary counts ${counted[1]} actions; this episode had ${steps}.`);
  return problems;
}
