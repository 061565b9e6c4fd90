// Seeded mutations of the committed experiment files, for the fuzz test (test/unit/experiments/experimentFuzz.test.ts)
// and the fuzz benchmark (bench/robustness/experiment_fuzz.mjs): type swaps, deleted and unknown keys, unicode and
// control characters, huge and non-finite numbers, deep nesting, alias bombs, tabs, duplicate keys, binary garbage,
// truncation, empty and oversized files. The same seed gives the same files.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface Mutant {
  name: string;
  /** What was done to the base file, for failure messages. */
  recipe: string[];
  bytes: Uint8Array;
}

/** mulberry32: small, seedable, good enough to pick mutations. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function baseExperiments(repoRoot: string): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [];
  for (const dir of ['examples', path.join('resources', 'templates')]) {
    for (const file of readdirSync(path.join(repoRoot, dir)).filter((f) => f.endsWith('.seed.yaml')).sort()) {
      out.push({ name: `${dir}/${file}`, text: readFileSync(path.join(repoRoot, dir, file), 'utf8') });
    }
  }
  return out;
}

const SCALARS = [
  '"5"', "'7'", 'true', 'false', 'yes', 'no', 'on', '1_000', '1e3', '1.5e2', '.inf', '-.inf', '.nan', 'null', '~', '[]',
  '{}', '1e400', '-1e400', '99999999999999999999', '9007199254740991', '9007199254740992', '0x1F', '0o17', '017', '-0',
  '0.0', '3.0', '""', 'abc', '[1, 2]', '{a: 1}', '!!str 5', '!!int "5"', '!custom x', '*undefined_alias', '&a 3', '2.5',
  '-3', '+12', '0', '1', '8', '"auto"', 'auto', 'sdar', 'external', 'seed', '12:30', '2026-01-01', '0b101', '+.inf',
];
const CHARACTERS = [
  '\u202e', '\u2066', '\u200b', '😀', 'é', '\u0000', '\u0007', '\u001b', '\u007f', '\u0085', '\u00a0', '\u2028', '\u2029',
  '\ufeff', '\ufffe', '\r', '\t', '\\', '"', "'", ':', '#', '{', '}', '[', ']', ',', '&', '*', '!', '|', '>', '%', '@', '`',
  '-', '?', ' ', '\n',
];
const KEYS = ['unknown_key', 'group_sise', 'lr', 'name', 'model', 'path', 'x'.repeat(300), 'ключ', '<<', '"quoted key"', '? complex'];

type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;
const int = (rng: Rng, low: number, high: number): number => low + Math.floor(rng() * (high - low + 1));

function lines(text: string): string[] {
  return text.split('\n');
}

/** Lines that hold `key: value` with a value on the same line. */
function valueLines(all: string[]): number[] {
  return all.flatMap((line, i) => (/^\s*[A-Za-z_]+:\s+\S/.test(line) && !line.trimStart().startsWith('#') ? [i] : []));
}

function keyLines(all: string[]): number[] {
  return all.flatMap((line, i) => (/^\s*[A-Za-z_]+:/.test(line) ? [i] : []));
}

type TextMutation = (text: string, rng: Rng) => string;

const TEXT_MUTATIONS: Record<string, TextMutation> = {
  swapValue(text, rng) {
    const all = lines(text);
    const candidates = valueLines(all);
    if (candidates.length === 0) return text;
    const i = pick(rng, candidates);
    all[i] = (all[i] ?? '').replace(/:\s+.*$/, `: ${pick(rng, SCALARS)}`);
    return all.join('\n');
  },
  deleteKey(text, rng) {
    const all = lines(text);
    const candidates = keyLines(all);
    if (candidates.length > 0) all.splice(pick(rng, candidates), 1);
    return all.join('\n');
  },
  unknownKey(text, rng) {
    const all = lines(text);
    const candidates = keyLines(all);
    const i = candidates.length > 0 ? pick(rng, candidates) : 0;
    const indent = /^\s*/.exec(all[i] ?? '')?.[0] ?? '';
    all.splice(i, 0, `${indent}${pick(rng, KEYS)}: ${pick(rng, SCALARS)}`);
    return all.join('\n');
  },
  insertCharacter(text, rng) {
    const at = int(rng, 0, text.length);
    return text.slice(0, at) + pick(rng, CHARACTERS) + text.slice(at);
  },
  tabAfterColon(text, rng) {
    const all = lines(text);
    const candidates = valueLines(all);
    if (candidates.length === 0) return text;
    const i = pick(rng, candidates);
    all[i] = (all[i] ?? '').replace(/:\s+/, rng() < 0.5 ? ':\t' : ': \t');
    return all.join('\n');
  },
  duplicateLine(text, rng) {
    const all = lines(text);
    const candidates = keyLines(all);
    if (candidates.length === 0) return text;
    const i = pick(rng, candidates);
    all.splice(i + 1, 0, all[i] ?? '');
    return all.join('\n');
  },
  deepFlow(text, rng) {
    const depth = pick(rng, [10, 62, 63, 64, 65, 500, 1200, 20000]);
    return `${text}\nenvironment_deep: ${'['.repeat(depth)}1${']'.repeat(depth)}\n`;
  },
  deepOptions(text, rng) {
    const depth = pick(rng, [50, 60, 61, 62, 63, 200]);
    const body = Array.from({ length: depth }, (_, i) => `${'  '.repeat(i + 2)}k${i}:`).join('\n');
    return text.replace(/^environment:.*$/m, `environment:\n  options:\n${body} 1`);
  },
  aliasBomb(text, rng) {
    const levels = int(rng, 3, 9);
    const rows = ['  options:', '    l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 1; i <= levels; i += 1) rows.push(`    l${i}: &l${i} [${Array.from({ length: 9 }, () => `*l${i - 1}`).join(', ')}]`);
    return text.replace(/^environment:.*$/m, `environment:\n${rows.join('\n')}`);
  },
  anchorReuse(text, rng) {
    const count = pick(rng, [100, 101, 999, 1000, 1001, 3000]);
    const items = Array.from({ length: count }, () => '*o').join(', ');
    return text.replace(/^environment:.*$/m, `environment:\n  options:\n    one: &o 1\n    many: [${items}]`);
  },
  manyUnknownKeys(text, rng) {
    const count = pick(rng, [200, 5000, 40000]);
    return `${text}\n${Array.from({ length: count }, (_, i) => `k${i}: ${i}`).join('\n')}\n`;
  },
  truncate(text, rng) {
    return text.slice(0, int(rng, 0, text.length));
  },
  crossField(text, rng) {
    return rng() < 0.5 ? text.replace(/^algorithm:.*$/m, 'algorithm: sdar') : `${text}\nanalyzer:\n  kind: external\n`;
  },
  flowMapping(text) {
    return text.replace(/^rollout:\s*$/m, 'rollout: {group_size: 4, group_size: 5}');
  },
  documentMarkers(text, rng) {
    return pick(rng, [`%YAML 1.1\n---\n${text}`, `${text}\n---\nname: second\n`, `---\n${text}\n...\n`]);
  },
  mergeKey(text) {
    return text.replace(/^rollout:\s*$/m, 'base: &b {max_steps: 5}\nrollout:\n  <<: *b');
  },
  bigString(text, rng) {
    return `${text}\nname: "${'x'.repeat(pick(rng, [1000, 100_000, 600_000]))}"\n`;
  },
};

type ByteMutation = (bytes: Uint8Array, rng: Rng) => Uint8Array;

const BYTE_MUTATIONS: Record<string, ByteMutation> = {
  garbage(bytes, rng) {
    const out = Uint8Array.from(bytes);
    for (let n = int(rng, 1, 8); n > 0; n -= 1) out[int(rng, 0, Math.max(0, out.length - 1))] = int(rng, 0, 255);
    return out;
  },
  invalidUtf8(bytes, rng) {
    const at = int(rng, 0, bytes.length);
    const bad = pick(rng, [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0x80]]);
    return Uint8Array.from([...bytes.subarray(0, at), ...bad, ...bytes.subarray(at)]);
  },
  bom(bytes) {
    return Uint8Array.from([0xef, 0xbb, 0xbf, ...bytes]);
  },
};

const encoder = new TextEncoder();

/** `count` mutants of the base files, reproducible from `seed`. Every 97th is a whole-file extreme. */
export function mutants(repoRoot: string, seed: number, count: number, options: { huge?: boolean } = {}): Mutant[] {
  const rng = random(seed);
  const bases = baseExperiments(repoRoot);
  const textNames = Object.keys(TEXT_MUTATIONS);
  const byteNames = Object.keys(BYTE_MUTATIONS);
  const out: Mutant[] = [];
  for (let n = 0; n < count; n += 1) {
    const base = pick(rng, bases);
    const recipe = [base.name];
    let bytes: Uint8Array;
    if (n % 97 === 96) {
      const kind = pick(rng, ['empty', 'oversized', 'binary', 'spaces']);
      recipe.push(kind);
      if (kind === 'empty') bytes = new Uint8Array(0);
      else if (kind === 'oversized') bytes = encoder.encode(`${base.text}\n#${'x'.repeat(options.huge ? 5_000_000 : 1_100_000)}\n`);
      else if (kind === 'binary') bytes = Uint8Array.from({ length: int(rng, 1, 4096) }, () => int(rng, 0, 255));
      else bytes = encoder.encode(' '.repeat(int(rng, 0, 100)));
    } else {
      let text = base.text;
      for (let m = int(rng, 1, 3); m > 0; m -= 1) {
        const name = pick(rng, textNames);
        recipe.push(name);
        text = (TEXT_MUTATIONS[name] as TextMutation)(text, rng);
      }
      bytes = encoder.encode(text);
      if (rng() < 0.12) {
        const name = pick(rng, byteNames);
        recipe.push(name);
        bytes = (BYTE_MUTATIONS[name] as ByteMutation)(bytes, rng);
      }
    }
    out.push({ name: `mutant-${String(n).padStart(4, '0')}.seed.yaml`, recipe, bytes });
  }
  return out;
}
