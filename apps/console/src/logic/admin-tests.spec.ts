import {
  definitionSummary,
  outcomeCounts,
  outcomeFilter,
  parseDefinition,
  predicateSentence,
  selectedTypes,
  testsParams,
  testsStateOf,
  toYaml,
} from './admin-tests';

const definition = {
  on: { types: ['dataset'], conditions: { property: 'datasetProperties.name', operator: 'exists' } },
  rules: {
    or: [
      { property: 'ownership.owners.owner', operator: 'exists' },
      { not: { property: 'globalTags.tags.tag', operator: 'regex_match', values: ['^urn:li:tag:pii-'] } },
    ],
  },
};

describe('test definitions', () => {
  it('parses the JSON text of testInfo, or says why not', () => {
    const parsed = parseDefinition({ name: 't', definition: { type: 'JSON', json: JSON.stringify(definition) } });
    expect(parsed).toEqual({ ok: true, value: definition });
    expect(parseDefinition({ definition: { type: 'JSON', json: '{' } })).toMatchObject({ ok: false, text: '{' });
    expect(parseDefinition(undefined)).toEqual({ ok: false, problem: 'This test has no definition', text: '' });
  });

  it('prints YAML readably, quoting only what must be', () => {
    expect(toYaml(definition)).toBe(
      [
        'on:',
        '  types:',
        '    - dataset',
        '  conditions:',
        '    property: datasetProperties.name',
        '    operator: exists',
        'rules:',
        '  or:',
        '    - property: ownership.owners.owner',
        '      operator: exists',
        '    - not:',
        '        property: globalTags.tags.tag',
        '        operator: regex_match',
        '        values:',
        '          - "^urn:li:tag:pii-"',
      ].join('\n'),
    );
    expect(toYaml({ a: [], b: {}, c: null, d: 'true', e: 3, 'odd key': 'x: y' })).toBe(
      ['a: []', 'b: {}', 'c: null', 'd: "true"', 'e: 3', '"odd key": "x: y"'].join('\n'),
    );
    expect(toYaml([[1, 2], 'x'])).toBe(['- - 1', '  - 2', '- x'].join('\n'));
  });

  it('says a definition in words', () => {
    expect(selectedTypes(definition)).toEqual(['dataset']);
    expect(selectedTypes({ match: { types: ['chart', 3] } })).toEqual(['chart']);
    expect(definitionSummary(definition)).toEqual({
      selects: 'dataset where datasetProperties.name exists',
      requires: 'ownership.owners.owner exists or not (globalTags.tags.tag matches ^urn:li:tag:pii-)',
    });
    expect(definitionSummary({ on: { types: ['dataset'] } })).toEqual({ selects: 'dataset', requires: 'always' });
    expect(
      predicateSentence({
        and: [
          {
            or: [
              { property: 'a', operator: 'is_true' },
              { property: 'b', operator: 'equals', value: 2 },
            ],
          },
          { query: 'c', operation: 'starts_with', values: ['x'], negate: true },
        ],
      }),
    ).toBe('(a is true or b equals 2) and not (c starts with x)');
    expect(predicateSentence([])).toBe('always');
  });
});

describe('tests page in the URL', () => {
  it('round-trips search, list page, test, outcome, results page and format', () => {
    const params = new URLSearchParams('q=owner&from=20&test=urn:li:test:owned&outcome=passing&start=40&format=json');
    const state = testsStateOf(params);
    expect(state).toEqual({
      query: 'owner',
      listStart: 20,
      test: 'urn:li:test:owned',
      outcome: 'passing',
      start: 40,
      format: 'json',
    });
    expect(testsStateOf(testsParams(state))).toEqual(state);
    expect(testsParams(testsStateOf(new URLSearchParams('test=nope'))).toString()).toBe('');
  });
});

describe('outcomes', () => {
  it('filters search on a test outcome', () => {
    expect(outcomeFilter('urn:li:test:t', 'failing')).toEqual([
      { and: [{ field: 'failingTests', values: ['urn:li:test:t'] }] },
    ]);
    expect(outcomeFilter('urn:li:test:t', 'passing')[0]?.and[0]?.field).toBe('passingTests');
  });

  it('counts passing and failing entities per test from the facets', () => {
    const counts = outcomeCounts([
      { field: 'passingTests', aggregations: [{ value: 'urn:li:test:a', count: 3 }] },
      {
        field: 'failingTests',
        aggregations: [
          { value: 'urn:li:test:a', count: 1 },
          { value: 'urn:li:test:b', count: 5 },
        ],
      },
      { field: '_entityType', aggregations: [{ value: 'DATASET', count: 9 }] },
    ]);
    expect(Object.fromEntries(counts)).toEqual({
      'urn:li:test:a': { passing: 3, failing: 1 },
      'urn:li:test:b': { passing: 0, failing: 5 },
    });
    expect(outcomeCounts(null).size).toBe(0);
  });
});
