/**
 * Metadata tests as the console shows them: a test's `testInfo` (its definition is JSON text), the definition printed
 * as readable YAML, its rules summed up in a sentence, the page's state in its URL, and the search filters that find
 * the entities passing or failing a test. Pure functions (unit-tested in admin-tests.spec.ts).
 */
import { offsetParam } from './admin-runs';

/** A test's `testInfo` aspect. */
export interface TestInfo {
  readonly name?: string;
  readonly category?: string;
  readonly description?: string | null;
  readonly definition?: { readonly type?: string; readonly json?: string } | null;
}

/** A test's definition, parsed, or why it could not be. */
export type ParsedDefinition =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problem: string; readonly text: string };

export function parseDefinition(info: TestInfo | undefined): ParsedDefinition {
  const text = info?.definition?.json;
  if (text === undefined || text.trim() === '') return { ok: false, problem: 'This test has no definition', text: '' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, problem: `The definition is not JSON: ${(error as Error).message}`, text };
  }
}

const PLAIN_SCALAR = /^[A-Za-z_][A-Za-z0-9_.\-/ ]*$/;
const YAML_WORDS = new Set(['true', 'false', 'null', 'yes', 'no', 'on', 'off', '~']);

function yamlScalar(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (PLAIN_SCALAR.test(text) && !YAML_WORDS.has(text.toLowerCase()) && text === text.trim()) return text;
  return JSON.stringify(text);
}

function yamlKey(key: string): string {
  return PLAIN_SCALAR.test(key) && !key.includes(' ') ? key : JSON.stringify(key);
}

/** JSON printed as block-style YAML (two spaces; strings quoted only when they must be). */
export function toYaml(value: unknown, indent = 0): string {
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return `${pad}[]`;
    return value
      .map((item) => {
        if (isContainer(item) && !isEmpty(item)) {
          const nested = toYaml(item, indent + 2);
          return `${pad}- ${nested.slice(indent + 2)}`;
        }
        return `${pad}- ${inline(item)}`;
      })
      .join('\n');
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return `${pad}{}`;
    return entries
      .map(([key, item]) =>
        isContainer(item) && !isEmpty(item)
          ? `${pad}${yamlKey(key)}:\n${toYaml(item, indent + 2)}`
          : `${pad}${yamlKey(key)}: ${inline(item)}`,
      )
      .join('\n');
  }
  return `${pad}${yamlScalar(value)}`;
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function isEmpty(value: object): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
}

function inline(value: unknown): string {
  if (Array.isArray(value)) return '[]';
  if (typeof value === 'object' && value !== null) return '{}';
  return yamlScalar(value);
}

/** The entity types a definition selects (`on.types`, or `match.types`). */
export function selectedTypes(definition: unknown): string[] {
  const record = definition as { on?: { types?: unknown }; match?: { types?: unknown } } | null;
  const types = record?.on?.types ?? record?.match?.types;
  return Array.isArray(types) ? types.filter((type): type is string => typeof type === 'string') : [];
}

const OPERATOR_WORDS: Readonly<Record<string, string>> = {
  exists: 'exists',
  equals: 'equals',
  contains_str: 'contains',
  contains_any: 'contains any of',
  starts_with: 'starts with',
  regex_match: 'matches',
  greater_than: 'is greater than',
  less_than: 'is less than',
  is_true: 'is true',
  is_false: 'is false',
  schema_fields_have_descriptions: 'has a description on every field',
};

/** A predicate of a definition in words (`ownership.owners.owner exists or not (globalTags… matches ^pii)`). */
export function predicateSentence(predicate: unknown, depth = 0): string {
  if (depth > 32) return '…';
  if (predicate === undefined || predicate === null) return 'always';
  if (Array.isArray(predicate)) return joined(predicate, 'and', depth);
  if (typeof predicate !== 'object') return scalarText(predicate);
  const record = predicate as Record<string, unknown>;
  if (Array.isArray(record.and)) return joined(record.and, 'and', depth);
  if (Array.isArray(record.or)) return joined(record.or, 'or', depth);
  if ('not' in record) return `not (${predicateSentence(record.not, depth + 1)})`;
  const property = record.property ?? record.query;
  const operator = record.operator ?? record.operation;
  if (typeof property === 'string' && typeof operator === 'string') {
    const values = Array.isArray(record.values)
      ? record.values.map(scalarText)
      : record.value !== undefined
        ? [scalarText(record.value)]
        : [];
    const words = OPERATOR_WORDS[operator] ?? operator;
    const sentence = `${property} ${words}${values.length > 0 ? ` ${values.join(', ')}` : ''}`;
    return record.negate === true ? `not (${sentence})` : sentence;
  }
  return JSON.stringify(predicate);
}

/** A value of a predicate as text: a string as it is, anything else as JSON. */
function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined ? 'undefined' : JSON.stringify(value);
}

function joined(items: readonly unknown[], word: 'and' | 'or', depth: number): string {
  if (items.length === 0) return 'always';
  if (items.length === 1) return predicateSentence(items[0], depth + 1);
  return items
    .map((item) => {
      const sentence = predicateSentence(item, depth + 1);
      return / (and|or) /.test(sentence) && !sentence.startsWith('not (') ? `(${sentence})` : sentence;
    })
    .join(` ${word} `);
}

/** A definition summed up: which entities it selects, and what they must satisfy. */
export function definitionSummary(definition: unknown): { selects: string; requires: string } {
  const record = (definition ?? {}) as {
    on?: { conditions?: unknown };
    match?: { conditions?: unknown };
    rules?: unknown;
  };
  const types = selectedTypes(definition);
  const conditions = record.on?.conditions ?? record.match?.conditions;
  const selects =
    (types.length === 0 ? 'no entity type' : types.join(', ')) +
    (conditions === undefined ? '' : ` where ${predicateSentence(conditions)}`);
  return { selects, requires: predicateSentence(record.rules) };
}

/** Which outcome the results list shows. */
export type TestOutcome = 'failing' | 'passing';

/**
 * The tests page's state in its URL: the search over tests and the first test listed, the test open, the outcome
 * listed, the first result shown, and how the definition is printed.
 */
export interface TestsState {
  readonly query: string;
  readonly listStart: number;
  readonly test: string | undefined;
  readonly outcome: TestOutcome;
  readonly start: number;
  readonly format: 'yaml' | 'json';
}

export function testsStateOf(params: URLSearchParams): TestsState {
  const test = params.get('test');
  return {
    query: (params.get('q') ?? '').trim(),
    listStart: offsetParam(params.get('from')),
    test: test !== null && test.startsWith('urn:li:test:') ? test : undefined,
    outcome: params.get('outcome') === 'passing' ? 'passing' : 'failing',
    start: offsetParam(params.get('start')),
    format: params.get('format') === 'json' ? 'json' : 'yaml',
  };
}

export function testsParams(state: TestsState): URLSearchParams {
  const params = new URLSearchParams();
  if (state.query !== '') params.set('q', state.query);
  if (state.listStart > 0) params.set('from', String(state.listStart));
  if (state.test !== undefined) params.set('test', state.test);
  if (state.outcome !== 'failing') params.set('outcome', state.outcome);
  if (state.start > 0) params.set('start', String(state.start));
  if (state.format !== 'yaml') params.set('format', state.format);
  return params;
}

/** The search filter (GraphQL `orFilters`) of the entities with an outcome of a test. */
export function outcomeFilter(test: string, outcome: TestOutcome) {
  return [{ and: [{ field: outcome === 'passing' ? 'passingTests' : 'failingTests', values: [test] }] }];
}

/** The counts of passing and failing entities per test, from the search facets `passingTests` and `failingTests`. */
export function outcomeCounts(
  facets: readonly { field: string; aggregations: readonly { value: string; count: number }[] }[] | null | undefined,
): Map<string, { passing: number; failing: number }> {
  const counts = new Map<string, { passing: number; failing: number }>();
  for (const facet of facets ?? []) {
    const key = facet.field === 'passingTests' ? 'passing' : facet.field === 'failingTests' ? 'failing' : undefined;
    if (key === undefined) continue;
    for (const aggregation of facet.aggregations) {
      const entry = counts.get(aggregation.value) ?? { passing: 0, failing: 0 };
      entry[key] = aggregation.count;
      counts.set(aggregation.value, entry);
    }
  }
  return counts;
}

/** Tests listed per page, and results per page. */
export const TESTS_PAGE_SIZE = 20;
export const TEST_RESULTS_PAGE_SIZE = 20;
