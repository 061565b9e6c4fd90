// The plain-text rendering of a trajectory (language `seed-trajectory`, syntaxes/seed-trajectory.tmLanguage.json):
// what "Copy as Text" copies and what "Open as Text Diff" compares. Layout rules that the grammar and the folding
// rely on: header lines start at column 0 (`trajectory`, `task:` …), each turn starts with a `turn N` line at column
// 0 and everything inside it is indented, field contents are indented by 4 — so no untrusted text can start a line
// that looks like a header, and indentation folding folds by turn. Untrusted text goes through displayText.
// No vscode, no Node APIs.
import type { Trajectory, TrajectoryStep } from '../../runs/shared/types';
import { formatNumber, formatPercent, formatScore } from '../shared/format';
import { displayText } from '../../common/shared/inertText';
import { meanAdvantage, trajectoryStats, type TurnStats } from '../shared/turnStats';

export interface TextRenderOptions {
  /** The run the trajectory belongs to (its id or directory name). */
  run?: string;
  /** Longest field shown whole (longer ones are cut with a note); default 200 000 characters. */
  maxFieldChars?: number;
}

const INDENT_FIELD = '    ';

function block(label: string, text: string, max: number): string[] {
  const shown = displayText(text.length > max ? text.slice(0, max) : text);
  const lines = shown.split('\n').map((line) => (line.length > 0 ? INDENT_FIELD + line : ''));
  if (text.length > max) lines.push(`${INDENT_FIELD}… (${text.length - max} more characters not shown)`);
  return [`  ${label}:`, ...lines];
}

/** One line: inline untrusted text with its newlines shown as ⏎ (used for short fields such as task ids). */
function inline(text: string): string {
  return displayText(text).replace(/\n/g, ' \u23CE ');
}

function turnHeader(step: TrajectoryStep, index: number, stats: TurnStats | undefined): string {
  const parts = [`turn ${index + 1}`, `t=${step.t}`, step.valid ? 'valid' : 'invalid'];
  if (typeof step.score === 'number') parts.push(`score ${formatScore(step.score)}`);
  if (typeof step.env_reward === 'number') parts.push(`env reward ${formatScore(step.env_reward)}`);
  if (typeof step.advantage === 'number') parts.push(`advantage ${formatNumber(step.advantage)}`);
  if (stats && stats.tokens > 0) parts.push(`tokens ${stats.tokens}`);
  if (stats?.teacher) parts.push(`mean g ${formatNumber(stats.meanGate)}`, `g>0.5 ${formatPercent(stats.fracGateAboveHalf)}`);
  if (step.truncated) parts.push('truncated');
  return parts.join(' · ');
}

export function renderTrajectoryText(trajectory: Trajectory, options: TextRenderOptions = {}): string {
  const max = options.maxFieldChars ?? 200_000;
  const { turns, total } = trajectoryStats(trajectory);
  const lines: string[] = [];
  lines.push(`trajectory ${inline(trajectory.id)}`);
  if (options.run !== undefined) lines.push(`run: ${inline(options.run)}`);
  const task = trajectory.task;
  lines.push(`task: ${[task.id, task.type, task.split].filter((x): x is string => typeof x === 'string').map(inline).join(' · ')}`);
  if (task.description) lines.push(`description: ${inline(task.description)}`);
  const outcome = [
    trajectory.success ? 'success' : 'failure',
    `reward ${formatScore(trajectory.reward)}`,
    `length ${trajectory.length}`,
    `phase ${trajectory.phase}`,
  ];
  if (trajectory.update !== null) outcome.push(`update ${trajectory.update}`);
  if (trajectory.group !== undefined) outcome.push(`group ${trajectory.group}`);
  if (trajectory.sample !== undefined) outcome.push(`sample ${trajectory.sample}`);
  const advantage = meanAdvantage(trajectory);
  if (advantage !== null) outcome.push(`advantage ${formatNumber(advantage)}`);
  lines.push(`outcome: ${outcome.join(' · ')}`);
  if (total.teacher) {
    lines.push(`gate: mean g ${formatNumber(total.meanGate)} · g>0.5 ${formatPercent(total.fracGateAboveHalf)} · mean Δ ${formatNumber(total.meanDelta)} · ${total.tokens} tokens`);
  } else if (total.tokens > 0) {
    lines.push(`gate: no teacher pass · ${total.tokens} tokens`);
  }
  const skill = trajectory.skill;
  if (skill) {
    lines.push(`skill: ${skill.source} · ${skill.valid ? 'valid' : 'invalid'}${!skill.valid && skill.reason ? ` (${inline(skill.reason)})` : ''}`);
    if (skill.text) lines.push(...block('text', skill.text, max));
    if (skill.summary) lines.push(...block('summary', skill.summary, max));
  } else {
    lines.push('skill: none');
  }
  trajectory.steps.forEach((step, index) => {
    lines.push('');
    lines.push(turnHeader(step, index, turns[index]));
    lines.push(...block('observation', step.observation, max));
    lines.push(...block('response', step.response, max));
    lines.push(step.action === null ? '  action: (none: no well-formed <action>)' : `  action: ${inline(step.action)}`);
  });
  if (trajectory.final_observation !== undefined) {
    lines.push('');
    lines.push('final');
    lines.push(...block('observation', trajectory.final_observation, max));
  }
  return `${lines.join('\n')}\n`;
}

/** 0-based line ranges [start, end] of each turn (and the final observation) in a rendering, for folding. */
export function turnFoldingRanges(text: string): { start: number; end: number }[] {
  const lines = text.split('\n');
  const ranges: { start: number; end: number }[] = [];
  let start = -1;
  let lastContent = -1;
  const close = () => {
    if (start >= 0 && lastContent > start) ranges.push({ start, end: lastContent });
  };
  lines.forEach((line, index) => {
    if (/^(turn \d+\b|final$)/.test(line)) {
      close();
      start = index;
      lastContent = index;
    } else if (/^\S/.test(line)) {
      close();
      start = -1;
    } else if (line.trim() !== '') {
      lastContent = index;
    }
  });
  close();
  return ranges;
}
