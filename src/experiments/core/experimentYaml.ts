// Reading an experiment file into plain data under the limits and the YAML subset the trainer shares
// (trainer/seed_trainer/experiment/yaml_data.py applies the same rules in the same order, so both give one verdict):
// size, UTF-8 (first bad byte), control characters and tabs (experimentText.ts), then YAML 1.2 core-schema values
// (duplicate keys, nesting depth, alias count and expanded size, no tags or directives, integers within ±(2^53 − 1),
// finite floats). No `vscode` import. docs/experiment-files.md is the prose version of these rules.
import type { Node as YamlNode, Pair, Scalar } from 'yaml';
import { loadYaml } from '../../common/core/lazyRequire';
import {
  EXPERIMENT_LIMITS,
  LineMap,
  ReadError,
  checkCharacters,
  pathKey,
  sizeProblem,
  type Located,
  type ReadProblem,
  type TextRange,
} from './experimentText';

// YAML 1.2 core schema, plain scalars only (https://yaml.org/spec/1.2.2/#1023-core-schema).
const NULL = /^(?:~|null|Null|NULL|)$/;
const BOOL = /^(?:true|True|TRUE|false|False|FALSE)$/;
const INT10 = /^[-+]?[0-9]+$/;
const INT8 = /^0o[0-7]+$/;
const INT16 = /^0x[0-9a-fA-F]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const NON_FINITE = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;

function codePoints(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code < 0xd800 || code > 0xdbff) count += 1;
  }
  return count;
}

/** Builds plain values from the parsed document in document order under the shared rules; throws ReadError. */
class Builder {
  readonly located: Located = { keys: new Map(), values: new Map() };
  /** Per anchored node: its value and its expanded size (what an alias to it adds). */
  private readonly anchored = new Map<YamlNode, unknown>();
  private readonly sizes = new Map<YamlNode, number>();
  /** Anchor name → the newest node that has it (in document order). */
  private readonly anchors = new Map<string, YamlNode>();
  private readonly open = new Set<YamlNode>();
  private aliases = 0;
  private expanded = 0;

  constructor(private readonly lines: LineMap) {}

  private fail(message: string, node: YamlNode | null | undefined, source: ReadProblem['source'] = 'yaml'): never {
    throw new ReadError({ message, range: this.rangeOf(node) ?? this.lines.firstLine(), source });
  }

  /** A node's range from its first property (`&anchor`, `!tag`) on, where the trainer's parser starts it too. */
  private rangeOf(node: YamlNode | null | undefined): TextRange | undefined {
    const range = node?.range;
    if (!range || !node) return undefined;
    let start = range[0];
    if (node.anchor !== undefined || node.tag !== undefined) {
      const text = this.lines.text;
      for (;;) {
        let end = start;
        while (end > 0 && /[ \n\r]/.test(text[end - 1] ?? '')) end -= 1;
        let begin = end;
        while (begin > 0 && !/[ \n\r]/.test(text[begin - 1] ?? '')) begin -= 1;
        if (begin < end && /^[!&]/.test(text.slice(begin, end))) start = begin;
        else break;
      }
    }
    return this.lines.span(start, range[1]);
  }

  private grow(amount: number, node: YamlNode): void {
    this.expanded += amount;
    if (this.expanded > EXPERIMENT_LIMITS.maxExpanded) {
      this.fail(
        `the document expands to more than ${EXPERIMENT_LIMITS.maxExpanded} nodes and characters (aliases repeat their anchor's content)`,
        node,
        'limit',
      );
    }
  }

  private noTag(node: YamlNode): void {
    if (node.tag !== undefined) this.fail(`tags (\`${shortTag(node.tag)}\`) are not supported: write the value itself`, node);
  }

  private scalar(node: Scalar): unknown {
    this.noTag(node);
    const source = String(node.source ?? '');
    if (node.type !== 'PLAIN') {
      const text = typeof node.value === 'string' ? node.value : source;
      this.grow(1 + codePoints(text), node);
      return text;
    }
    this.grow(1 + codePoints(source), node);
    if (NULL.test(source)) return null;
    if (BOOL.test(source)) return source[0] === 't' || source[0] === 'T';
    for (const [pattern, parse] of [
      [INT10, (s: string) => Number(s)],
      [INT8, (s: string) => parseInt(s.slice(2), 8)],
      [INT16, (s: string) => parseInt(s.slice(2), 16)],
    ] as const) {
      if (pattern.test(source)) {
        const number = parse(source);
        if (Math.abs(number) > EXPERIMENT_LIMITS.maxInteger) {
          this.fail(`integer ${source} is out of range (at most 2^53 − 1 = ${EXPERIMENT_LIMITS.maxInteger} either side of 0)`, node);
        }
        return number === 0 ? 0 : number;
      }
    }
    if (NON_FINITE.test(source)) this.fail(`\`${source}\` is not a finite number`, node);
    if (FLOAT.test(source)) {
      const number = Number(source);
      if (!Number.isFinite(number)) this.fail(`\`${source}\` is not a finite number (beyond ±1.8e308)`, node);
      return number;
    }
    return source;
  }

  private record(path: readonly string[], node: YamlNode | null | undefined, into: Map<string, TextRange>): void {
    const range = this.rangeOf(node);
    if (range) into.set(pathKey(path), range);
  }

  /** The value of `node` at `path`, `depth` collections deep. */
  value(node: YamlNode | null | undefined, path: string[], depth: number): unknown {
    const { isAlias, isMap, isScalar, isSeq } = loadYaml();
    if (node === null || node === undefined) return null;
    this.record(path, node, this.located.values);
    if (isAlias(node)) {
      this.aliases += 1;
      if (this.aliases > EXPERIMENT_LIMITS.maxAliases) this.fail(`more than ${EXPERIMENT_LIMITS.maxAliases} aliases`, node, 'limit');
      // The newest node with that anchor before the alias, as `yaml`'s Alias.resolve finds it, but without its walk
      // of the whole document per alias (quadratic with many aliases).
      const target = this.anchors.get(node.source);
      if (target && this.open.has(target)) this.fail(`alias \`*${node.source}\` refers to the collection that contains it`, node);
      const size = target ? this.sizes.get(target) : undefined;
      if (!target || size === undefined) this.fail(`alias \`*${node.source}\` has no anchor \`&${node.source}\` before it`, node);
      this.grow(size, node);
      return this.anchored.get(target);
    }
    const before = this.expanded;
    if (node.anchor) this.anchors.set(node.anchor, node);
    let result: unknown;
    if (isScalar(node)) {
      result = this.scalar(node);
    } else if (isMap(node) || isSeq(node)) {
      this.noTag(node);
      if (depth + 1 > EXPERIMENT_LIMITS.maxDepth) this.fail(`nesting deeper than ${EXPERIMENT_LIMITS.maxDepth} levels`, node, 'limit');
      this.grow(1, node);
      if (node.anchor) this.open.add(node);
      if (isMap(node)) {
        // No prototype: a `__proto__` key is then an ordinary key (one the schema refuses), as in the trainer.
        const out = Object.create(null) as Record<string, unknown>;
        for (const pair of node.items as Pair<YamlNode | null, YamlNode | null>[]) {
          const key = this.key(pair.key, out, path);
          out[key] = null; // the key's place (and its order) until its value arrives
          out[key] = this.value(pair.value, [...path, key], depth + 1);
        }
        result = out;
      } else {
        const out: unknown[] = [];
        for (const item of node.items as (YamlNode | null)[]) out.push(this.value(item, [...path, String(out.length)], depth + 1));
        result = out;
      }
      this.open.delete(node);
    } else {
      this.fail('unsupported YAML node', node);
    }
    if (node.anchor) {
      this.sizes.set(node, this.expanded - before);
      this.anchored.set(node, result);
    }
    return result;
  }

  private key(node: YamlNode | null, out: Record<string, unknown>, path: readonly string[]): string {
    const { isScalar } = loadYaml();
    if (node !== null && !isScalar(node)) this.fail('mapping keys must be plain text (not lists, mappings or aliases)', node);
    if (node) this.noTag(node);
    const key = node ? (node.type === 'PLAIN' ? String(node.source ?? '') : String(node.value ?? '')) : '';
    if (node) this.grow(1 + codePoints(key), node);
    const childPath = [...path, key];
    if (Object.prototype.hasOwnProperty.call(out, key)) {
      const first = this.located.keys.get(pathKey(childPath));
      this.fail(`duplicate key \`${key}\`${first ? ` (first at line ${first.start.line + 1})` : ''}`, node);
    }
    this.record(childPath, node, this.located.keys);
    return key;
  }
}

function shortTag(tag: string): string {
  return tag.startsWith('tag:yaml.org,2002:') ? `!!${tag.slice('tag:yaml.org,2002:'.length)}` : tag;
}

/**
 * The offset of the first collection nested deeper than the limit, when flow brackets go deeper than it: `yaml`'s
 * composer recurses per level and runs out of stack (or memory) on thousands of them, so such text is refused before
 * it is composed. Lexer and CST parser are iterative; the walk below is too. Text with few brackets skips all this.
 */
function tooDeepOffset(text: string): number | undefined {
  let brackets = 0;
  for (let i = text.indexOf('['); i !== -1 && brackets <= EXPERIMENT_LIMITS.maxDepth; i = text.indexOf('[', i + 1)) brackets += 1;
  for (let i = text.indexOf('{'); i !== -1 && brackets <= EXPERIMENT_LIMITS.maxDepth; i = text.indexOf('{', i + 1)) brackets += 1;
  if (brackets <= EXPERIMENT_LIMITS.maxDepth) return undefined;
  const { Lexer, Parser } = loadYaml();
  let flow = 0;
  let deepest = 0;
  for (const token of new Lexer().lex(text)) {
    if (token === '[' || token === '{') deepest = Math.max(deepest, ++flow);
    else if (token === ']' || token === '}') flow -= 1;
  }
  if (deepest <= EXPERIMENT_LIMITS.maxDepth) return undefined;
  type Item = { start?: unknown; key?: unknown; sep?: unknown; value?: unknown };
  type Token = { type?: string; offset?: number; value?: unknown; items?: Item[]; start?: { offset?: number } | unknown };
  const stack: { token: Token; depth: number }[] = [];
  for (const token of new Parser().parse(text)) stack.unshift({ token: token as Token, depth: 0 });
  stack.reverse();
  while (stack.length > 0) {
    const { token, depth } = stack.pop() as { token: Token; depth: number };
    const collection = token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection';
    if (collection && depth + 1 > EXPERIMENT_LIMITS.maxDepth) return token.offset;
    const children: Token[] = [];
    if (token.type === 'document' && token.value) children.push(token.value as Token);
    for (const item of token.items ?? []) {
      if (item.key && typeof item.key === 'object') children.push(item.key as Token);
      if (item.value && typeof item.value === 'object') children.push(item.value as Token);
    }
    for (const child of children.reverse()) stack.push({ token: child, depth: collection ? depth + 1 : depth });
  }
  return undefined;
}

export interface ExperimentData {
  value: unknown;
  located: Located;
  lines: LineMap;
  /** The root node's range (for "must be a mapping"). */
  rootRange?: TextRange;
}

// The lexer's markers that stand for no source text (document start, flow end, scalar start).
const LEXER_MARKERS = new Set(['\x02', '\x18', '\x1f']);

/** `text` with every flow collection deeper than the limit blanked out (newlines kept, so every offset stays): text
 *  the YAML library can compose without recursing that deep, to learn whether the file also has a syntax error. */
function withoutDeepFlow(text: string): string {
  let depth = 0;
  let out = '';
  for (const token of loadYaml().Lexer.prototype.lex.call(new (loadYaml().Lexer)(), text) as Iterable<string>) {
    if (LEXER_MARKERS.has(token)) continue;
    const opens = token === '[' || token === '{';
    if (opens) depth += 1;
    out += depth > EXPERIMENT_LIMITS.maxDepth ? token.replace(/[^\n]/g, ' ') : token;
    if (token === ']' || token === '}') depth = Math.max(0, depth - 1);
  }
  return out;
}

/** The experiment's plain data and where its keys and values are; throws ReadError at the first violation. */
export function readExperimentText(text: string): ExperimentData {
  const lines = new LineMap(text);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > EXPERIMENT_LIMITS.maxBytes) throw new ReadError(sizeProblem(bytes));
  const characters = checkCharacters(text, lines);
  if (characters) throw new ReadError(characters);
  const options = { uniqueKeys: false, version: '1.2', schema: 'core', merge: false, prettyErrors: false } as const;
  const deep = tooDeepOffset(text);
  // A syntax error anywhere wins over the depth, as in the trainer (experiment/yaml_data.py); the text is composed without
  // its too-deep part to find one.
  const syntax = deep === undefined ? undefined : loadYaml().parseDocument(withoutDeepFlow(text), options).errors[0];
  if (deep !== undefined && syntax === undefined) {
    const at = lines.position(deep);
    throw new ReadError({ message: `nesting deeper than ${EXPERIMENT_LIMITS.maxDepth} levels`, range: { start: at, end: { line: at.line, character: at.character + 1 } }, source: 'limit' });
  }
  const document = deep === undefined ? loadYaml().parseDocument(text, options) : undefined;
  const error = syntax ?? document?.errors[0];
  if (error?.code === 'MULTIPLE_DOCS') {
    // Worded and placed as the trainer does (experiment/yaml_data.py), not as the library's advice to its own callers.
    const at = error.pos[0];
    throw new ReadError({ message: 'more than one YAML document (`---`): an experiment file holds one', range: lines.span(at, at + 3), source: 'yaml' });
  }
  if (error) {
    throw new ReadError({
      message: `not valid YAML: ${error.message.split('\n')[0] ?? error.message}`,
      range: lines.span(error.pos[0], error.pos[1]),
      source: 'yaml',
    });
  }
  const directives = document!.directives;
  if (directives?.yaml.explicit || Object.keys(directives?.tags ?? {}).some((handle) => handle !== '!!')) {
    throw new ReadError({ message: 'directives (`%YAML`, `%TAG`) are not supported', range: lines.firstLine(), source: 'yaml' });
  }
  const builder = new Builder(lines);
  const root = document!.contents as YamlNode | null;
  const value = builder.value(root, [], 0);
  return { value, located: builder.located, lines, rootRange: builder.located.values.get(pathKey([])) };
}

/** The YAML document of an experiment text for the warnings that read single nodes with their ranges (model.path,
 * values past a plausible budget); undefined when it does not parse (the schema's errors speak then). */
export function parsedDocument(text: string): ReturnType<ReturnType<typeof loadYaml>['parseDocument']> | undefined {
  try {
    const document = loadYaml().parseDocument(text, { prettyErrors: false });
    return document.errors.length > 0 ? undefined : document;
  } catch {
    return undefined;
  }
}
