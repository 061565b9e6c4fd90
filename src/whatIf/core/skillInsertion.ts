// H(h, s): the skill block inserted into a step prompt, exactly as the trainer's seed_trainer/algo/skills.py does it
// (after the task line, else before the turn marker, else at the end; blank lines around it; the rest untouched).
// The marker and block strings come from the export, so a trainer that changes them changes both sides at once.
import { WhatIfError } from './errors';

export interface SkillFormat {
  header: string;
  instruction: string;
  task_marker: string;
  turn_marker: string;
}

// Python's str.strip() strips what str.isspace() calls whitespace: JS's \s without U+FEFF, plus U+001C–U+001F and
// U+0085. Spelled out, so a BOM next to a skill stays, as it does in the trainer.
const PY_SPACE = '[\\t-\\r \\u001c-\\u001f\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const LEADING = new RegExp(`^${PY_SPACE}+`, 'u');
const TRAILING = new RegExp(`${PY_SPACE}+$`, 'u');
const pyLstrip = (text: string): string => text.replace(LEADING, '');
const pyRstrip = (text: string): string => text.replace(TRAILING, '');
const pyStrip = (text: string): string => pyLstrip(pyRstrip(text));

export function skillBlock(skill: string, format: SkillFormat): string {
  return `${format.header}\n${format.instruction}\n[${pyStrip(skill)}]`;
}

/** Index just past the first line holding the task marker, or undefined. */
function endOfTaskLine(prompt: string, marker: string): number | undefined {
  const at = prompt.indexOf(marker);
  if (at === -1) return undefined;
  const newline = prompt.indexOf('\n', at);
  return newline === -1 ? prompt.length : newline + 1;
}

export function insertSkill(prompt: string, skill: string, format: SkillFormat): string {
  if (!pyStrip(skill)) return prompt;
  let at = endOfTaskLine(prompt, format.task_marker);
  if (at === undefined) {
    const turn = prompt.indexOf(format.turn_marker);
    at = turn !== -1 ? turn : prompt.length;
  }
  const head = pyRstrip(prompt.slice(0, at));
  const tail = pyLstrip(prompt.slice(at));
  return [head, skillBlock(skill, format), tail].filter((part) => part).join('\n\n');
}

// C0/C1 controls other than tab and newline, and the bidi overrides: a skill holding them would be scored as
// something the reader cannot see.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

/** Throws a `skill` WhatIfError for a skill that cannot be rescored; returns it unchanged otherwise. */
export function checkSkillText(skill: string): string {
  if (!pyStrip(skill)) throw new WhatIfError('skill', 'The skill is empty: type the lesson to try.');
  const match = CONTROL.exec(skill);
  if (match) {
    const code = match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    throw new WhatIfError('skill', `The skill holds the control character U+${code} at position ${match.index + 1}: remove it and try again.`);
  }
  return skill;
}
