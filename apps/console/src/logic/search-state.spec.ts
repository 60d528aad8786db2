import {
  EMPTY_SEARCH,
  facetHref,
  facetLabel,
  facetValueLabel,
  filterChips,
  highlightSegments,
  lastPage,
  orFiltersOf,
  parseSearchState,
  plainSummary,
  queryTerms,
  searchHref,
  searchInputOf,
  searchParamsOf,
  sortInputOf,
  withFilter,
  withPage,
  withShowDeleted,
  withSort,
  withoutFilters,
  type SearchState,
} from './search-state';

const parse = (query: string) => parseSearchState(new URLSearchParams(query));

describe('the search state in the URL', () => {
  it('reads the query, filters, sort, page and show-deleted', () => {
    expect(
      parse(
        'query=orders&filter_platform=urn%3Ali%3AdataPlatform%3Ahive&filter_platform=urn%3Ali%3AdataPlatform%3Akafka' +
          '&filter__entityType=DATASET&sort=name&page=3&deleted=true',
      ),
    ).toEqual({
      query: 'orders',
      filters: {
        platform: ['urn:li:dataPlatform:hive', 'urn:li:dataPlatform:kafka'],
        _entityType: ['DATASET'],
      },
      sort: 'name',
      page: 3,
      showDeleted: true,
    });
  });

  it('gives the defaults for an empty query string', () => {
    expect(parse('')).toEqual(EMPTY_SEARCH);
  });

  it('ignores what is malformed: unknown sorts, bad pages, empty or repeated values, odd field names', () => {
    expect(
      parse('query=%20%20x%20&sort=random&page=-2&filter_tags=&filter_tags=a&filter_tags=a&filter_a%20b=c&deleted=1'),
    ).toEqual({ query: 'x', filters: { tags: ['a'] }, sort: 'relevance', page: 1, showDeleted: false });
    expect(parse('page=2.5').page).toBe(1);
    expect(parse('page=abc').page).toBe(1);
  });

  it('caps the page at the deepest the index reaches', () => {
    expect(parse('page=99999').page).toBe(500);
  });

  it('caps the number of filter values a link may carry', () => {
    const many = Array.from({ length: 80 }, (_, index) => `filter_tags=t${index}`).join('&');
    expect(parse(many).filters['tags']).toHaveLength(50);
  });

  it('writes a canonical query string, leaving defaults out', () => {
    expect(searchParamsOf(EMPTY_SEARCH).toString()).toBe('');
    const state: SearchState = {
      query: 'orders by day',
      filters: { tags: ['urn:li:tag:pii'], platform: ['urn:li:dataPlatform:hive'] },
      sort: 'modified',
      page: 2,
      showDeleted: true,
    };
    const params = searchParamsOf(state);
    expect(params.toString()).toBe(
      'query=orders+by+day&filter_tags=urn%3Ali%3Atag%3Apii&filter_platform=urn%3Ali%3AdataPlatform%3Ahive' +
        '&sort=modified&page=2&deleted=true',
    );
    expect(parseSearchState(params)).toEqual(state);
  });

  it('round-trips any state through the URL', () => {
    const states: SearchState[] = [
      EMPTY_SEARCH,
      { ...EMPTY_SEARCH, query: 'a&b=c "quoted" #x' },
      { ...EMPTY_SEARCH, filters: { _entityType: ['DATASET', 'CHART'], 'customProperties.team': ['x=y'] } },
      { ...EMPTY_SEARCH, sort: 'name-desc', page: 7 },
    ];
    for (const state of states) expect(parseSearchState(searchParamsOf(state))).toEqual(state);
  });

  it('builds links', () => {
    expect(searchHref({})).toBe('/search');
    expect(searchHref({ query: 'x' })).toBe('/search?query=x');
    expect(facetHref('platform', 'urn:li:dataPlatform:hive')).toBe(
      '/search?filter_platform=urn%3Ali%3AdataPlatform%3Ahive',
    );
  });
});

describe('changing the search', () => {
  const base: SearchState = { ...EMPTY_SEARCH, query: 'x', page: 4, filters: { platform: ['p1'] } };

  it('ticks and unticks facet values, back to page 1, keeping the fields in order', () => {
    const ticked = withFilter(base, 'tags', 't1', true);
    expect(ticked.filters).toEqual({ platform: ['p1'], tags: ['t1'] });
    expect(Object.keys(ticked.filters)).toEqual(['platform', 'tags']);
    expect(ticked.page).toBe(1);
    expect(withFilter(ticked, 'platform', 'p2', true).filters).toEqual({ platform: ['p1', 'p2'], tags: ['t1'] });
    expect(Object.keys(withFilter(ticked, 'platform', 'p2', true).filters)).toEqual(['platform', 'tags']);
    expect(withFilter(ticked, 'platform', 'p1', false).filters).toEqual({ tags: ['t1'] });
    expect(withFilter(ticked, 'tags', 't1', true).filters).toEqual(ticked.filters);
    expect(withFilter(base, 'tags', 'absent', false).filters).toEqual(base.filters);
  });

  it('lists the ticked values as chips', () => {
    expect(filterChips(withFilter(base, 'tags', 't1', true))).toEqual([
      { field: 'platform', value: 'p1' },
      { field: 'tags', value: 't1' },
    ]);
  });

  it('resets the page when the sort, the filters or show-deleted change, not when paging', () => {
    expect(withSort(base, 'name')).toMatchObject({ sort: 'name', page: 1 });
    expect(withShowDeleted(base, true)).toMatchObject({ showDeleted: true, page: 1 });
    expect(withoutFilters(base)).toMatchObject({ filters: {}, page: 1, query: 'x' });
    expect(withPage(base, 6).page).toBe(6);
    expect(withPage(base, 0).page).toBe(1);
  });

  it('counts pages within the deepest the index reaches', () => {
    expect(lastPage(0)).toBe(1);
    expect(lastPage(20)).toBe(1);
    expect(lastPage(21)).toBe(2);
    expect(lastPage(1_000_000)).toBe(500);
  });
});

describe('the GraphQL search input', () => {
  it('builds one AND group of criteria, each matching any of its values', () => {
    expect(orFiltersOf({})).toEqual([]);
    expect(orFiltersOf({ platform: [] })).toEqual([]);
    expect(
      orFiltersOf({
        _entityType: ['DATASET', 'CHART'],
        platform: ['urn:li:dataPlatform:hive'],
        tags: ['urn:li:tag:a'],
      }),
    ).toEqual([
      {
        and: [
          { field: '_entityType', values: ['DATASET', 'CHART'], condition: 'EQUAL', negated: false },
          { field: 'platform', values: ['urn:li:dataPlatform:hive'], condition: 'EQUAL', negated: false },
          { field: 'tags', values: ['urn:li:tag:a'], condition: 'EQUAL', negated: false },
        ],
      },
    ]);
  });

  it('sorts by the entity name or the last modification, relevance being the default order', () => {
    expect(sortInputOf('relevance')).toBeUndefined();
    expect(sortInputOf('name')).toEqual({ sortCriteria: [{ field: '_entityName', sortOrder: 'ASCENDING' }] });
    expect(sortInputOf('name-desc')).toEqual({ sortCriteria: [{ field: '_entityName', sortOrder: 'DESCENDING' }] });
    expect(sortInputOf('modified')).toEqual({ sortCriteria: [{ field: 'lastModifiedAt', sortOrder: 'DESCENDING' }] });
  });

  it('asks for one page of 20, everything for an empty query, and soft-deleted entities only when asked', () => {
    expect(searchInputOf(EMPTY_SEARCH)).toEqual({ query: '*', start: 0, count: 20 });
    expect(
      searchInputOf({ query: 'orders', filters: { tags: ['t'] }, sort: 'name', page: 3, showDeleted: true }),
    ).toEqual({
      query: 'orders',
      start: 40,
      count: 20,
      orFilters: [{ and: [{ field: 'tags', values: ['t'], condition: 'EQUAL', negated: false }] }],
      sortInput: { sortCriteria: [{ field: '_entityName', sortOrder: 'ASCENDING' }] },
      searchFlags: { includeSoftDeleted: true },
    });
  });
});

describe('facet labels', () => {
  it('reads entity types, entity names, URNs and plain values', () => {
    expect(facetValueLabel('_entityType', 'DATA_JOB')).toBe('Job');
    expect(facetValueLabel('_entityType', 'CORP_USER')).toBe('User');
    expect(facetValueLabel('platform', 'urn:li:dataPlatform:bigquery', 'BigQuery')).toBe('BigQuery');
    expect(facetValueLabel('platform', 'urn:li:dataPlatform:bigquery', ' ')).toBe('bigquery');
    expect(facetValueLabel('owners', 'urn:li:corpuser:jdoe')).toBe('jdoe');
    expect(facetValueLabel('origin', 'PROD')).toBe('PROD');
    expect(facetLabel('glossaryTerms')).toBe('Glossary terms');
    expect(facetLabel('somethingElse')).toBe('somethingElse');
  });
});

describe('highlighting', () => {
  it('takes the searched words of a query', () => {
    expect(queryTerms('*')).toEqual([]);
    expect(queryTerms('')).toEqual([]);
    expect(queryTerms('Orders')).toEqual(['orders']);
    expect(queryTerms('orders AND daily OR revenue')).toEqual(['revenue', 'orders', 'daily']);
    expect(queryTerms('name:orders -test "daily revenue" ord*')).toEqual(['daily revenue', 'orders', 'ord']);
    expect(queryTerms('(a OR b) orders orders')).toEqual(['orders', 'a', 'b']);
  });

  it('cuts a text into marked and unmarked runs, case-insensitively', () => {
    expect(highlightSegments('Daily orders and Orders', ['orders'])).toEqual([
      { text: 'Daily ', mark: false },
      { text: 'orders', mark: true },
      { text: ' and ', mark: false },
      { text: 'Orders', mark: true },
    ]);
    expect(highlightSegments('orders_daily', ['orders', 'ord'])).toEqual([
      { text: 'orders', mark: true },
      { text: '_daily', mark: false },
    ]);
    expect(highlightSegments('nothing', [])).toEqual([{ text: 'nothing', mark: false }]);
    expect(highlightSegments('', ['x'])).toEqual([]);
  });

  it('treats the terms as text, not as patterns, and never produces markup', () => {
    expect(highlightSegments('a.b axb (c)', ['a.b', '(c)'])).toEqual([
      { text: 'a.b', mark: true },
      { text: ' axb ', mark: false },
      { text: '(c)', mark: true },
    ]);
    const hostile = '<img src=x onerror=alert(1)> orders';
    const segments = highlightSegments(hostile, ['orders']);
    expect(segments.map((segment) => segment.text).join('')).toBe(hostile);
    expect(segments[0]).toEqual({ text: '<img src=x onerror=alert(1)> ', mark: false });
  });
});

describe('plain summaries of descriptions', () => {
  it('reduces Markdown to its words on one line', () => {
    expect(plainSummary('# Orders\n\nThe **daily** [orders](http://x) table.\n\n- one\n- `two`')).toBe(
      'Orders The daily orders table. one two',
    );
    expect(plainSummary('<script>alert(1)</script>Text')).toBe('alert(1) Text');
    expect(plainSummary('Keys: order_id and __init__, *one* and _two_ and ~~three~~; a * b')).toBe(
      'Keys: order_id and init, one and two and three; a * b',
    );
    expect(plainSummary('| a | b |\n|---|:---:|\n| 1 | 2 |\n\n---\nEnd')).toBe('a b 1 2 End');
    expect(plainSummary(null)).toBe('');
    expect(plainSummary(undefined)).toBe('');
  });

  it('cuts long text at a word boundary with an ellipsis', () => {
    const text = 'word '.repeat(100);
    const summary = plainSummary(text, 50);
    expect(summary.length).toBeLessThanOrEqual(51);
    expect(summary.endsWith('word…')).toBe(true);
  });
});
