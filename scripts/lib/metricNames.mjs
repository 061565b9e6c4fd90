/**
 * The metric names of schemas/metric.schema.json as a TypeScript table (src/runs/shared/generated/metricNames.ts), so
 * the dashboard's charts are derived from the one list the readers validate against. Written by schemaTypes.mjs
 * beside the record types. The schema's own keywords: `x-units` (root: unit → {symbol, description}), and on each
 * metric `x-unit`, `x-chart` (a chart id, or false: not charted), optional `x-label` (the legend text) and, on a family
 * of `patternProperties`, `x-family` (what its names look like); `deprecated` marks a name no longer written. The one
 * pattern without `x-family`, UNLISTED, admits the names the schema does not list (a newer trainer's): not a name here.
 */

/** The annotation keywords the metric schema adds to JSON Schema (the generated METRIC_SCHEMA_KEYWORDS: ajv is told of them). */
const METRIC_KEYWORDS = ['x-units', 'x-unit', 'x-chart', 'x-label', 'x-family'];

/** The catch-all of `patternProperties`: any namespaced name, read though not listed (checkers warn). */
const UNLISTED = '#/$defs/unlisted_metric';

const quote = (text) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The entries of the table, checked: every metric has a known unit and an explicit chart (or false). */
export function metricNameEntries(schema) {
  const units = schema['x-units'];
  if (!units || typeof units !== 'object') throw new Error('schemas/metric.schema.json: no x-units at its root');
  const entry = (where, name, spec, pattern) => {
    if (!(spec['x-unit'] in units)) throw new Error(`schemas/metric.schema.json ${where}: x-unit ${JSON.stringify(spec['x-unit'])} is not one of x-units`);
    const chart = spec['x-chart'];
    if (chart !== false && (typeof chart !== 'string' || chart === '')) throw new Error(`schemas/metric.schema.json ${where}: x-chart must be a chart id or false`);
    return { name, ...(pattern ? { pattern } : {}), unit: spec['x-unit'], chart, ...(spec['x-label'] ? { label: spec['x-label'] } : {}), ...(spec.deprecated ? { deprecated: true } : {}) };
  };
  const names = Object.entries(schema.properties ?? {})
    .filter(([name]) => name.includes('/'))
    .map(([name, spec]) => entry(`#/properties/${name}`, name, spec));
  const families = Object.entries(schema.patternProperties ?? {})
    .filter(([, spec]) => spec.$ref !== UNLISTED)
    .map(([pattern, spec]) => {
      if (typeof spec['x-family'] !== 'string') throw new Error(`schemas/metric.schema.json #/patternProperties/${pattern}: no x-family (what its names look like)`);
      return entry(`#/patternProperties/${pattern}`, spec['x-family'], spec, pattern);
    });
  return { units, names: [...names, ...families] };
}

/** The module's text (after the generated-file header). */
export function metricNamesModule(schema) {
  const { units, names } = metricNameEntries(schema);
  const key = (name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : quote(name));
  const unitLines = Object.entries(units).map(([name, unit]) => `  ${key(name)}: { symbol: ${quote(unit.symbol)}, description: ${quote(unit.description)} },`);
  const nameLines = names.map((entry) => {
    const fields = [`name: ${quote(entry.name)}`];
    if (entry.pattern) fields.push(`pattern: ${quote(entry.pattern)}`);
    fields.push(`unit: ${quote(entry.unit)}`, `chart: ${entry.chart === false ? 'false' : quote(entry.chart)}`);
    if (entry.label) fields.push(`label: ${quote(entry.label)}`);
    if (entry.deprecated) fields.push('deprecated: true');
    return `  { ${fields.join(', ')} },`;
  });
  return [
    '/** The keywords the metric schema adds to JSON Schema, which a strict validator must be told of. */',
    `export const METRIC_SCHEMA_KEYWORDS = [${METRIC_KEYWORDS.map(quote).join(', ')}] as const;`,
    '',
    '/** A unit of metric values: `symbol` is what a chart title shows of it (empty: nothing). */',
    'export interface MetricUnit {',
    '  symbol: string;',
    '  description: string;',
    '}',
    '',
    '/** The units (the schema\'s `x-units`). */',
    'export const METRIC_UNITS = {',
    ...unitLines,
    '} as const satisfies Record<string, MetricUnit>;',
    '',
    'export type MetricUnitName = keyof typeof METRIC_UNITS;',
    '',
    '/** A metric name the trainer writes, or wrote (`deprecated`), or a family of them (`pattern`). */',
    'export interface MetricName {',
    '  /** The name (`loss/pg`); for a family, what its names look like (`success/<task_type>`). */',
    '  name: string;',
    '  /** A family\'s names: a regular expression. */',
    '  pattern?: string;',
    '  unit: MetricUnitName;',
    '  /** The dashboard chart that draws it (an id of src/dashboard/shared/charts.ts), or false: none. */',
    '  chart: string | false;',
    '  /** The legend text, when not the part of the name after its `/`. */',
    '  label?: string;',
    '  /** No longer written: known so that older runs still read. */',
    '  deprecated?: true;',
    '}',
    '',
    '/** A name the schema lists (not a family\'s): what a hand-picked list of metrics is typed as. */',
    `export type ListedMetricName =\n${names.filter((entry) => !entry.pattern).map((entry) => `  | ${quote(entry.name)}`).join('\n')};`,
    '',
    '/** Every metric name of schemas/metric.schema.json, in its order; families last. */',
    'export const METRIC_NAMES: readonly MetricName[] = [',
    ...nameLines,
    '];',
    '',
  ].join('\n');
}
