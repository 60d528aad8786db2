import type { FacetResult, SearchDocument, SearchIndex, SearchRequest } from '@strata/indices';
import { searchAcross, type SearchAcross } from './searcher';

const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const chart = (id: string) => `urn:li:chart:(looker,${id})`;

/**
 * A search index over fixed documents: every search matches every document of its type that passes the filter's
 * `GREATER_THAN_OR_EQUAL_TO` criteria (the only ones these tests use), in URN order; `lastModifiedAt` is a date field.
 * It remembers each search's filter.
 */
function indexOf(documents: readonly SearchDocument[], searches: SearchRequest[] = []): SearchIndex {
  const byUrn = new Map(documents.map((document) => [document.urn, document]));
  const passes = (document: SearchDocument, request: SearchRequest) =>
    request.filter.length === 0 ||
    request.filter.some((group) =>
      group.every((criterion) => {
        const values =
          criterion.field === 'lastChangedAt'
            ? document.lastChangedAt === undefined
              ? []
              : [document.lastChangedAt]
            : Object.values(document.aspects).flatMap((fields) => fields[criterion.field] ?? []);
        return values.some((value) => Number(value) >= Number(criterion.values[0]));
      }),
    );
  return {
    schema: {
      entity: () => ({
        field: (name: string) =>
          name === 'lastModifiedAt' || name === 'lastChangedAt' ? { type: 'DATETIME' } : undefined,
      }),
    },
    documents: (urns: readonly string[]) =>
      Promise.resolve(
        new Map(urns.flatMap((urn) => (byUrn.has(urn) ? [[urn, byUrn.get(urn) as SearchDocument]] : []))),
      ),
    search: (request: SearchRequest) => {
      searches.push(request);
      const matching = documents.filter(
        (document) => document.entityType === request.entityType && passes(document, request),
      );
      const facets: FacetResult[] = [];
      return Promise.resolve({
        total: matching.length,
        hits: matching
          .slice(request.start, request.start + request.count)
          .map((document) => ({ urn: document.urn, matchedFields: [] })),
        facets,
      });
    },
  } as unknown as SearchIndex;
}

const document = (urn: string, entityType: string, fields: Record<string, (string | number)[]>): SearchDocument => ({
  urn,
  entityType,
  aspects: { properties: fields },
});

const documents = [
  document(dataset('a'), 'dataset', { name: ['orders'], lastModifiedAt: [30] }),
  document(dataset('b'), 'dataset', { name: ['Customers'], lastModifiedAt: [10] }),
  document(dataset('c'), 'dataset', {}),
  document(chart('x'), 'chart', { title: ['Revenue'], lastModifiedAt: [20] }),
  document(chart('y'), 'chart', { title: ['alerts'] }),
];

const nameFields = (entityType: string) => (entityType === 'chart' ? ['title'] : ['name']);

function request(overrides: Partial<SearchAcross>): SearchAcross {
  return {
    types: ['dataset', 'chart'],
    input: '*',
    filter: [],
    start: 0,
    count: 10,
    flags: {},
    sort: [],
    typeFacet: true,
    nameFields,
    ...overrides,
  };
}

const urnsOf = async (overrides: Partial<SearchAcross>) =>
  (await searchAcross(indexOf(documents), request(overrides))).hits.map((hit) => hit.urn);

describe('sorting a search across entity types', () => {
  it('orders by _entityName: each type by its own name field, together, ignoring case, nameless ones last', async () => {
    expect(await urnsOf({ sort: [{ field: '_entityName', order: 'ASCENDING' }] })).toEqual([
      chart('y'),
      dataset('b'),
      dataset('a'),
      chart('x'),
      dataset('c'),
    ]);
    expect(await urnsOf({ sort: [{ field: '_entityName', order: 'DESCENDING' }] })).toEqual([
      chart('x'),
      dataset('a'),
      dataset('b'),
      chart('y'),
      dataset('c'),
    ]);
  });

  it('pages the sorted matches', async () => {
    expect(await urnsOf({ sort: [{ field: '_entityName', order: 'ASCENDING' }], start: 1, count: 2 })).toEqual([
      dataset('b'),
      dataset('a'),
    ]);
  });

  it('orders by a date field, newest first, those without it last (by URN)', async () => {
    expect(await urnsOf({ sort: [{ field: 'lastModifiedAt', order: 'DESCENDING' }] })).toEqual([
      dataset('a'),
      chart('x'),
      dataset('b'),
      chart('y'),
      dataset('c'),
    ]);
  });

  it("orders by the document's own lastChangedAt, newest first, across types, over more matches than a sort reads", async () => {
    const now = 1_800_000_000_000;
    const changed = Array.from({ length: 3_000 }, (_, n): SearchDocument => ({
      urn: n % 2 === 0 ? dataset(`c${String(n).padStart(5, '0')}`) : chart(`c${String(n).padStart(5, '0')}`),
      entityType: n % 2 === 0 ? 'dataset' : 'chart',
      aspects: { properties: { lastModifiedAt: [n] } },
      ...(n % 7 === 6 ? {} : { lastChangedAt: now - n * 1_000 }),
    }));
    const searches: SearchRequest[] = [];
    const outcome = await searchAcross(
      indexOf(changed, searches),
      request({ sort: [{ field: 'lastChangedAt', order: 'DESCENDING' }], count: 4, now: () => now }),
    );
    expect(outcome.total).toBe(3_000);
    expect(outcome.hits.map((hit) => hit.urn)).toEqual([
      dataset('c00000'),
      chart('c00001'),
      dataset('c00002'),
      chart('c00003'),
    ]);
    expect(searches.filter((search) => search.count > 0).every((search) => search.count <= 1_000)).toBe(true);
  });

  it('reads _entityName as a plain field when no name fields are known', async () => {
    const { nameFields: _unused, ...withoutNames } = request({ sort: [{ field: '_entityName', order: 'ASCENDING' }] });
    const outcome = await searchAcross(indexOf(documents), withoutNames);
    expect(outcome.hits.map((hit) => hit.urn)).toEqual([
      chart('x'),
      chart('y'),
      dataset('a'),
      dataset('b'),
      dataset('c'),
    ]);
  });
});

describe('sorting many matches newest first on a date field', () => {
  const HOUR = 3_600_000;
  const now = 1_800_000_000_000;
  /** `count` datasets, the n-th modified `n * step` milliseconds before now; every tenth without a date. */
  const many = (count: number, step: number) =>
    Array.from({ length: count }, (_, n) =>
      document(
        dataset(`t${String(n).padStart(6, '0')}`),
        'dataset',
        n % 10 === 9 ? { name: [`t${n}`] } : { name: [`t${n}`], lastModifiedAt: [now - n * step] },
      ),
    );
  const sorted = (documents: readonly SearchDocument[], overrides: Partial<SearchAcross>, searches?: SearchRequest[]) =>
    searchAcross(
      indexOf(documents, searches),
      request({
        types: ['dataset'],
        sort: [{ field: 'lastModifiedAt', order: 'DESCENDING' }],
        now: () => now,
        ...overrides,
      }),
    );

  it('answers over more matches than a sort reads, with the page the full sort gives', async () => {
    const documents = many(12_000, 1_000);
    const searches: SearchRequest[] = [];
    const outcome = await sorted(documents, { start: 0, count: 5 }, searches);
    expect(outcome.total).toBe(12_000);
    expect(outcome.hits.map((hit) => hit.urn)).toEqual(
      [0, 1, 2, 3, 4].map((n) => dataset(`t${String(n).padStart(6, '0')}`)),
    );
    // It read the newest hour (3,600 seconds, a tenth undated), halved to under 1,000, not the 12,000.
    const read = searches.filter((search) => search.count > 0);
    expect(read).toHaveLength(1);
    expect(read[0]?.count).toBeLessThanOrEqual(1_000);
  });

  it('pages deeper into the newest, widening the window as the page needs', async () => {
    const documents = many(12_000, 10 * HOUR);
    const outcome = await sorted(documents, { start: 40, count: 10 });
    const dated = documents.filter((item) => item.aspects['properties']?.['lastModifiedAt'] !== undefined);
    expect(outcome.hits.map((hit) => hit.urn)).toEqual(dated.slice(40, 50).map((item) => item.urn));
  });

  it('counts dates in the future as newest', async () => {
    const documents = [
      ...many(12_000, 1_000),
      document(dataset('future'), 'dataset', { lastModifiedAt: [now + HOUR] }),
    ];
    const outcome = await sorted(documents, { start: 0, count: 2 });
    expect(outcome.hits.map((hit) => hit.urn)).toEqual([dataset('future'), dataset('t000000')]);
  });

  it('still refuses what no window fits: oldest first, or a page among the undated', async () => {
    const documents = many(12_000, 1_000);
    await expect(sorted(documents, { sort: [{ field: 'lastModifiedAt', order: 'ASCENDING' }] })).rejects.toThrow(
      /at most 10000 matches/,
    );
    await expect(sorted(documents, { start: 11_990, count: 10 })).rejects.toThrow(/at most 10000 matches/);
    await expect(sorted(documents, { sort: [{ field: 'name', order: 'DESCENDING' }] })).rejects.toThrow(
      /at most 10000 matches/,
    );
  });
});
