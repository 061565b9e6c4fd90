// The TextMate grammars (syntaxes/) tokenized by vscode-textmate with the Oniguruma WASM engine, as VS Code does, on
// sample files: the text rendering of a fixture trajectory and the fixture skills.jsonl.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import * as oniguruma from 'vscode-oniguruma';
import { INITIAL, Registry, parseRawGrammar, type IGrammar } from 'vscode-textmate';
import { repoRoot } from '../support/repoPaths';

const GRAMMARS: Record<string, string> = {
  'source.seed-trajectory': 'syntaxes/seed-trajectory.tmLanguage.json',
  'source.seed-skills': 'syntaxes/seed-skills.tmLanguage.json',
};

let registry: Registry;

before(async () => {
  const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  registry = new Registry({
    onigLib: Promise.resolve({ createOnigScanner: (sources) => new oniguruma.OnigScanner(sources), createOnigString: (text) => new oniguruma.OnigString(text) }),
    loadGrammar: async (scopeName) => {
      const file = GRAMMARS[scopeName];
      if (!file) return null;
      const absolute = path.join(repoRoot, file);
      return parseRawGrammar(readFileSync(absolute, 'utf8'), absolute);
    },
  });
});

interface Token {
  line: number;
  text: string;
  scopes: string[];
}

async function tokenize(scope: string, text: string): Promise<Token[]> {
  const grammar = (await registry.loadGrammar(scope)) as IGrammar;
  assert.ok(grammar, `grammar ${scope} loads`);
  const tokens: Token[] = [];
  let stack = INITIAL;
  text.split('\n').forEach((content, line) => {
    const result = grammar.tokenizeLine(content, stack);
    for (const token of result.tokens) tokens.push({ line, text: content.slice(token.startIndex, token.endIndex), scopes: token.scopes });
    stack = result.ruleStack;
  });
  return tokens;
}

/** The scopes of the first token whose text is `text` (on `line`, if given). */
function scopesOf(tokens: Token[], text: string, line?: number): string[] {
  const token = tokens.find((t) => t.text === text && (line === undefined || t.line === line));
  assert.ok(token, `no token ${JSON.stringify(text)}${line === undefined ? '' : ` on line ${line}`}: ${JSON.stringify(tokens.filter((t) => line === undefined || t.line === line).map((t) => t.text))}`);
  return token.scopes;
}

function has(scopes: string[], scope: string): void {
  assert.ok(scopes.some((s) => s === scope || s.startsWith(`${scope}.`)), `${scope} not in ${scopes.join(' ')}`);
}

test('trajectory text: header, turn headers, statuses, numbers, fields, action tags, markers', async () => {
  const text = readFileSync(path.join(repoRoot, 'test', 'fixtures', 'grammars', 'it-000001-0002.seedtraj'), 'utf8');
  const lines = text.split('\n');
  const tokens = await tokenize('source.seed-trajectory', text);
  has(scopesOf(tokens, 'trajectory', 0), 'keyword.other.trajectory');
  has(scopesOf(tokens, 'it-000001-0002', 0), 'entity.name.type.trajectory-id');
  const outcome = lines.findIndex((l) => l.startsWith('outcome:'));
  has(scopesOf(tokens, 'outcome', outcome), 'variable.other.key');
  has(scopesOf(tokens, 'failure', outcome), 'markup.deleted.status');
  has(scopesOf(tokens, '0', outcome), 'constant.numeric');
  const turn2 = lines.findIndex((l) => l.startsWith('turn 2 '));
  has(scopesOf(tokens, 'turn', turn2), 'keyword.control.turn');
  has(scopesOf(tokens, '2', turn2), 'constant.numeric.turn-number');
  has(scopesOf(tokens, 'invalid', turn2), 'markup.deleted.status');
  has(scopesOf(tokens, 'advantage', turn2), 'variable.other.property');
  has(scopesOf(tokens, 'observation', turn2 + 1), 'variable.other.key.field');
  has(scopesOf(tokens, lines[turn2 + 2]!, turn2 + 2), 'string.unquoted.observation');
  const response = tokens.filter((t) => t.line === turn2 + 4);
  assert.ok(response.every((t) => t.scopes.some((s) => s.startsWith('meta.response'))), 'response content');
  has(scopesOf(tokens, 'action', turn2 + 5), 'variable.other.key.field');
  has(scopesOf(tokens, '(none: no well-formed <action>)', turn2 + 5), 'invalid.illegal.no-action');
  const turn1 = lines.findIndex((l) => l.startsWith('turn 1 '));
  has(scopesOf(tokens, 'valid', turn1), 'markup.inserted.status');
  has(scopesOf(tokens, '<action>', turn1 + 4), 'entity.name.tag.action');
  has(scopesOf(tokens, 'open microwave 1', turn1 + 4), 'markup.bold.action');
  has(scopesOf(tokens, 'open microwave 1', turn1 + 5), 'markup.bold.action');
  // A field's content ends at the next field label (zero-width end): the label is not content.
  assert.ok(!scopesOf(tokens, 'response', turn1 + 3).some((s) => s.startsWith('string.unquoted.observation')));
});

test('trajectory text: bidi markers are escapes; a content line that looks like a header stays content', async () => {
  const text = ['turn 1 · t=0 · valid', '  observation:', '    turn 2 · fake ⟦U+202E⟧', '', '    more', '  action: look', ''].join('\n');
  const tokens = await tokenize('source.seed-trajectory', text);
  has(scopesOf(tokens, '⟦U+202E⟧', 2), 'constant.character.escape.marker');
  assert.ok(!tokens.some((t) => t.line === 2 && t.scopes.some((s) => s.startsWith('keyword.control.turn'))));
  has(scopesOf(tokens, '    more', 4), 'string.unquoted.observation');
  has(scopesOf(tokens, 'look', 5), 'markup.bold.action');
});

test('skills.jsonl: review states, format verification, outcome, the skill text, keys and escapes', async () => {
  const text = readFileSync(path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid', 'skills.jsonl'), 'utf8');
  const tokens = await tokenize('source.seed-skills', text);
  has(scopesOf(tokens, 'pending', 0), 'markup.italic.review.pending');
  has(scopesOf(tokens, 'accepted', 1), 'markup.inserted.review.accepted');
  has(scopesOf(tokens, 'rejected', 2), 'markup.deleted.review.rejected');
  has(scopesOf(tokens, 'edited', 3), 'markup.changed.review.edited');
  const falses = tokens.filter((t) => t.line === 2 && t.text === 'false');
  assert.deepEqual(falses.map((t) => t.scopes[t.scopes.length - 1]), ['markup.deleted.outcome.failure.seed-skills', 'invalid.illegal.format-verification.seed-skills']);
  has(scopesOf(tokens, 'true', 0), 'markup.inserted.outcome.success');
  has(scopesOf(tokens, 'For heat tasks, take the object first, then heat it with the microwave before placing it.', 0), 'string.quoted.double.skill');
  has(scopesOf(tokens, 'Heat tasks: take the object, heat it in the microwave, then place it.', 3), 'markup.bold.skill');
  has(scopesOf(tokens, '"task"', 0), 'support.type.property-name');
  has(scopesOf(tokens, '1.0', 0), 'constant.numeric');
  has(scopesOf(tokens, '\\"', 2), 'constant.character.escape');
  has(scopesOf(tokens, 'null', 0), 'constant.language');
});
