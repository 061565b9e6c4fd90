// A corpus of hostile strings for the security tests: markup that would run script or load something if it were
// parsed as HTML, CSS that would restyle the page, bidi controls that would reorder what follows, invisibles, control
// characters, a 1 MB line, and what invalid UTF-8 leaves in a string (lone surrogates, U+FFFD, mojibake).
import type { SkillRecord, Trajectory } from '../../src/runs/shared/types';
import { syntheticTrajectory } from './synthetic';

export const ONE_MB_LINE = 'A'.repeat(1 << 20);

export const HOSTILE: readonly string[] = [
  '<script>window.__pwned = 1; alert(1)</script>',
  '<img src=x onerror="window.__pwned = 2; alert(2)">',
  '<svg onload="window.__pwned = 3"><circle r=5 /></svg>',
  '"><iframe srcdoc="<script>parent.__pwned = 4</script>"></iframe>',
  '<a href="javascript:window.__pwned = 5">click me</a>',
  'javascript:alert(document.domain)',
  '" onmouseover="window.__pwned = 6" x="',
  "'; window.__pwned = 7; '",
  '</style><style>* { background: red !important; display: none !important }</style>',
  'color: red; background: url(javascript:alert(1)); expression(alert(1))',
  '<link rel=stylesheet href="http://127.0.0.1:9/evil.css">',
  '<meta http-equiv="refresh" content="0; url=javascript:alert(1)">',
  '${window.__pwned = 8}{{constructor.constructor("alert(1)")()}}',
  'user\u202Egnp.exe — right-to-left override',
  '\u2066isolate\u2069 and \u202Bembedding\u202C and \u200Fmark',
  'zero\u200Bwidth\uFEFFbom\u2060joiner',
  'bell\u0007 escape\u001B[31m red \u0000 nul \u007F del',
  'lone surrogates \uD800 and \uDC80, replacement \uFFFD\uFFFD, mojibake Ã©Ã¨',
  ONE_MB_LINE,
];

/** The whole corpus in one string (short entries only), for fields shown on one line. */
export const HOSTILE_SHORT = HOSTILE.filter((s) => s.length < 1000).join(' ');

/** A trajectory with the corpus in its task, observations, responses, token pieces, actions and skill. */
export function hostileTrajectory(): Trajectory {
  const trajectory = syntheticTrajectory({ id: 'it-000009-0001', turns: HOSTILE.length, tokensPerTurn: 24, seed: 9, taskId: `household/<b>bold</b>${HOSTILE[0]}` });
  trajectory.task.description = HOSTILE_SHORT;
  trajectory.task.type = HOSTILE[1]!;
  trajectory.steps.forEach((step, index) => {
    const text = HOSTILE[index]!;
    step.observation = text;
    step.response = `${text}<action>${text.slice(0, 200)}</action>`;
    step.action = index % 5 === 4 ? null : text.slice(0, 5000);
    step.valid = step.action !== null;
    // Put the hostile string in as one token piece (plus pieces of it), keeping the arrays' counts.
    if (step.tokens) {
      step.tokens.text[0] = text;
      step.tokens.text[1] = text.slice(0, 8);
      step.tokens.text[2] = '';
    }
  });
  trajectory.skill = { text: HOSTILE_SHORT, summary: HOSTILE[8]!, valid: false, source: 'external', reason: HOSTILE[2]!, raw: HOSTILE.join('\n').slice(0, 5000) };
  trajectory.final_observation = ONE_MB_LINE;
  return trajectory;
}

/** Skill records with the corpus in every text field (for the review webview). */
export function hostileSkillRecords(): SkillRecord[] {
  return HOSTILE.filter((s) => s.length < 1000).map((text, index) => ({
    id: `collect-000001-${String(index + 1).padStart(4, '0')}`,
    trajectory: { id: `collect-000001-${String(index + 1).padStart(4, '0')}`, file: 'collect-000001.jsonl' },
    task: { id: `household/${text}`, type: index % 2 ? text : 'heat', description: text },
    success: index % 2 === 0,
    reward: index % 2 === 0 ? 1 : 0,
    length: 3,
    source: 'self',
    model: text,
    summary: text,
    skill: text,
    valid: index % 3 !== 0,
    reason: index % 3 !== 0 ? null : text,
    raw: text,
    time: '2026-03-01T12:00:30.000Z',
    review: index % 4 === 1 ? { state: 'edited', text } : { state: 'pending' },
  }));
}
