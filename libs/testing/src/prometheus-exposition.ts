/**
 * Checks of a Prometheus text exposition (format 0.0.4, what `/metrics` serves), written from the format's rules
 * rather than from the code that produces it, so that a test can tell whether `promtool check metrics` would accept it.
 */

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
// A float as Go's ParseFloat reads it, as Prometheus does: case-insensitive Inf, Infinity and NaN included.
const FLOAT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;

interface ParsedSample {
  readonly name: string;
  readonly labels: readonly (readonly [string, string])[];
  readonly value: string;
  readonly timestamp: string | undefined;
}

interface FamilyState {
  helps: number;
  type: string | undefined;
  samples: number;
  /** Another family's line came after this family's samples: any later sample of it is out of place. */
  closed: boolean;
}

/**
 * What breaks the exposition format, one sentence each (empty when valid): a line that does not parse (metric or
 * label name, label value, sample value, timestamp); a second HELP or TYPE line for a family, or one after its
 * samples; an unknown type; a family's samples not together; the same series twice (name and label set, in any
 * order); a label twice in one sample, or named with the reserved `__` prefix; a histogram bucket without `le`, a
 * summary quantile without `quantile`; and text that does not end with a line feed.
 */
export function expositionProblems(text: string): string[] {
  const problems: string[] = [];
  if (text !== '' && !text.endsWith('\n')) problems.push('the exposition does not end with a line feed');
  const families = new Map<string, FamilyState>();
  const stateOf = (name: string): FamilyState => {
    let state = families.get(name);
    if (state === undefined) {
      state = { helps: 0, type: undefined, samples: 0, closed: false };
      families.set(name, state);
    }
    return state;
  };
  const series = new Set<string>();
  let current: string | undefined;
  const enter = (family: string) => {
    if (current !== undefined && current !== family) {
      const previous = families.get(current);
      if (previous !== undefined && previous.samples > 0) previous.closed = true;
    }
    current = family;
  };
  text.split('\n').forEach((line, index) => {
    const at = `line ${index + 1}`;
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const declaration = /^#[ \t]+(HELP|TYPE)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(line);
      if (declaration === null) return; // a plain comment
      const [, keyword, name = '', rest = ''] = declaration;
      if (!METRIC_NAME.test(name)) problems.push(`${at}: invalid metric name '${name}'`);
      enter(name);
      const state = stateOf(name);
      if (state.samples > 0) problems.push(`${at}: ${keyword} of ${name} after its samples`);
      if (keyword === 'HELP') {
        state.helps++;
        if (state.helps > 1) problems.push(`${at}: second HELP line for ${name}`);
      } else {
        const type = rest.trim();
        if (!TYPES.has(type)) problems.push(`${at}: unknown type '${type}' of ${name}`);
        if (state.type !== undefined) problems.push(`${at}: second TYPE line for ${name}`);
        state.type = type;
      }
      return;
    }
    const sample = parseSampleLine(line);
    if (typeof sample === 'string') {
      problems.push(`${at}: ${sample}`);
      return;
    }
    const family = familyOf(sample.name, families);
    enter(family);
    const state = stateOf(family);
    if (state.closed) problems.push(`${at}: samples of ${family} are not together`);
    state.samples++;
    const names = sample.labels.map(([name]) => name);
    for (const name of names) {
      if (!LABEL_NAME.test(name)) problems.push(`${at}: invalid label name '${name}'`);
      else if (name.startsWith('__')) problems.push(`${at}: label name '${name}' is reserved`);
    }
    if (new Set(names).size !== names.length) problems.push(`${at}: a label given twice`);
    if (state.type === 'histogram' && sample.name === `${family}_bucket` && !names.includes('le')) {
      problems.push(`${at}: histogram bucket without 'le'`);
    }
    if (state.type === 'summary' && sample.name === family && !names.includes('quantile')) {
      problems.push(`${at}: summary quantile without 'quantile'`);
    }
    const key = `${sample.name}{${sample.labels
      .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
      .sort()
      .join(',')}}`;
    if (series.has(key)) problems.push(`${at}: series ${key} given twice`);
    series.add(key);
  });
  return problems;
}

/**
 * What `promtool check metrics` lints beyond the format (Prometheus's naming conventions, as client_golang's promlint
 * states them), one sentence each: a family without HELP; a counter not ending in `_total`, or another type ending in
 * it; `_bucket`, `_count`, `_sum` names or `le`, `quantile` labels outside histograms and summaries; a type in the
 * name; a colon; camelCase; abbreviated or non-base units.
 */
export function expositionLintProblems(text: string): string[] {
  const problems: string[] = [];
  const families = new Map<string, { help: boolean; type: string; labels: Set<string> }>();
  for (const line of text.split('\n')) {
    const declaration = /^#[ \t]+(HELP|TYPE)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(line);
    if (declaration !== null) {
      const [, keyword, name = '', rest = ''] = declaration;
      const family = families.get(name) ?? { help: false, type: 'untyped', labels: new Set<string>() };
      if (keyword === 'HELP') family.help = true;
      else family.type = rest.trim();
      families.set(name, family);
      continue;
    }
    if (line.trim() === '' || line.startsWith('#')) continue;
    const sample = parseSampleLine(line);
    if (typeof sample === 'string') continue;
    const name = familyOf(sample.name, families);
    const family = families.get(name) ?? { help: false, type: 'untyped', labels: new Set<string>() };
    for (const [label] of sample.labels) {
      // A histogram's `le` and a summary's `quantile` are not labels of its metrics (they index buckets, quantiles).
      if (!(family.type === 'histogram' && label === 'le') && !(family.type === 'summary' && label === 'quantile')) {
        family.labels.add(label);
      }
    }
    families.set(name, family);
  }
  for (const [name, { help, type, labels }] of families) {
    const problem = (text: string) => problems.push(`${name}: ${text}`);
    if (!help) problem('no help text');
    const total = name.endsWith('_total');
    if (type === 'counter' && !total) problem('counter metrics should have "_total" suffix');
    if (type !== 'counter' && type !== 'untyped' && total)
      problem('non-counter metrics should not have "_total" suffix');
    if (type !== 'untyped') {
      const histogram = type === 'histogram';
      const summary = type === 'summary';
      if (!histogram && name.endsWith('_bucket')) problem('non-histogram metrics should not have "_bucket" suffix');
      if (!histogram && !summary && (name.endsWith('_count') || name.endsWith('_sum'))) {
        problem('non-histogram and non-summary metrics should not have "_count" or "_sum" suffix');
      }
      if (!histogram && labels.has('le')) problem('non-histogram metrics should not have "le" label');
      if (!summary && labels.has('quantile')) problem('non-summary metrics should not have "quantile" label');
    }
    const lower = name.toLowerCase();
    const hasWord = (word: string) => lower.includes(`_${word}_`) || lower.endsWith(`_${word}`);
    for (const word of ['counter', 'gauge', 'histogram', 'summary', 'gauge_histogram']) {
      if (hasWord(word)) problem(`metric name should not include type '${word}'`);
    }
    if (name.includes(':')) problem("metric names should not contain ':'");
    if (/[a-z][A-Z]/.test(name)) problem("metric names should be written in 'snake_case' not 'camelCase'");
    for (const label of labels) {
      if (/[a-z][A-Z]/.test(label)) problem("label names should be written in 'snake_case' not 'camelCase'");
    }
    if (UNIT_ABBREVIATIONS.some(hasWord)) problem('metric names should not contain abbreviated units');
    const unit = nonBaseUnit(name);
    if (unit !== undefined) problem(`use base unit "${unit.base}" instead of "${unit.unit}"`);
  }
  return problems;
}

const UNIT_ABBREVIATIONS = ['s', 'ms', 'us', 'ns', 'sec', 'b', 'kb', 'mb', 'gb', 'tb', 'pb', 'm', 'h', 'd'];
const UNITS: Readonly<Record<string, string>> = {
  amperes: 'amperes',
  bytes: 'bytes',
  celsius: 'celsius',
  grams: 'grams',
  joules: 'joules',
  kelvin: 'kelvin',
  meters: 'meters',
  metres: 'metres',
  seconds: 'seconds',
  volts: 'volts',
  minutes: 'seconds',
  hours: 'seconds',
  days: 'seconds',
  weeks: 'seconds',
  kelvins: 'kelvin',
  fahrenheit: 'celsius',
  rankine: 'celsius',
  inches: 'meters',
  yards: 'meters',
  miles: 'meters',
  bits: 'bytes',
  calories: 'joules',
  pounds: 'grams',
  ounces: 'grams',
};
const UNIT_PREFIXES = [
  'pico',
  'nano',
  'micro',
  'milli',
  'centi',
  'deci',
  'deca',
  'hecto',
  'kilo',
  'kibi',
  'mega',
  'mibi',
  'giga',
  'gibi',
  'tera',
  'tebi',
  'peta',
  'pebi',
];

/** The first unit in a metric name that is not its base unit (`milliseconds`, `kilobytes`), if any. */
function nonBaseUnit(name: string): { unit: string; base: string } | undefined {
  for (const word of name.split('_')) {
    for (const prefix of ['', ...UNIT_PREFIXES]) {
      if (!word.startsWith(prefix)) continue;
      const base = UNITS[word.slice(prefix.length)];
      if (base !== undefined) return word === base ? undefined : { unit: word, base };
    }
  }
  return undefined;
}

/** The family a sample belongs to: its own name, or the histogram or summary its suffix names. */
function familyOf(sample: string, families: ReadonlyMap<string, { type: string | undefined }>): string {
  if (families.has(sample)) return sample;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sample.endsWith(suffix)) continue;
    const base = sample.slice(0, -suffix.length);
    const type = families.get(base)?.type;
    if (type === 'histogram' || (type === 'summary' && suffix !== '_bucket')) return base;
  }
  return sample;
}

/** A sample line, or what is wrong with it. */
function parseSampleLine(line: string): ParsedSample | string {
  const name = /^[^\s{]+/.exec(line)?.[0];
  if (name === undefined) return `no metric name in '${line}'`;
  if (!METRIC_NAME.test(name)) return `invalid metric name '${name}'`;
  let at = name.length;
  const labels: [string, string][] = [];
  if (line[at] === '{') {
    at++;
    for (;;) {
      while (line[at] === ' ') at++;
      if (line[at] === '}') break;
      const label = /^([^\s=]+)\s*=\s*"/.exec(line.slice(at));
      if (label === null) return `malformed labels in '${line}'`;
      at += label[0].length;
      let value = '';
      for (; at < line.length && line[at] !== '"'; at++) {
        if (line[at] === '\\') {
          at++;
          const escaped = line[at];
          if (escaped === 'n') value += '\n';
          else if (escaped === '\\' || escaped === '"') value += escaped;
          else return `invalid escape in a label value of '${line}'`;
        } else {
          value += line.charAt(at);
        }
      }
      if (at >= line.length) return `unterminated label value in '${line}'`;
      at++;
      labels.push([label[1] ?? '', value]);
      while (line[at] === ' ') at++;
      if (line[at] === ',') at++;
      else if (line[at] !== '}') return `malformed labels in '${line}'`;
    }
    at++;
  }
  const rest = line
    .slice(at)
    .trim()
    .split(/[ \t]+/);
  const [value, timestamp, ...extra] = rest;
  if (value === undefined || !FLOAT.test(value)) return `invalid sample value in '${line}'`;
  if (timestamp !== undefined && !/^-?\d+$/.test(timestamp)) return `invalid timestamp in '${line}'`;
  if (extra.length > 0) return `text after the sample in '${line}'`;
  return { name, labels, value, timestamp };
}
