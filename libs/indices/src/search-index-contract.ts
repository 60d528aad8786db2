import { describe, expect, it } from '@jest/globals';
import { ValidationError } from '@strata/model';

import { trackedIndices, type IndexUnderTest } from './contract-handles';
import { MAX_FILTER_CRITERIA, MAX_FILTER_VALUES } from './search-documents';
import type { Criterion, FieldContribution, Filter, SearchDocument, SearchIndex } from './search-index';
import { MAX_QUERY_NESTING, MAX_QUERY_TERMS } from './search-query';
import type { SearchSchema } from './search-schema';

/** What {@link describeSearchIndexContract} needs from an adapter. */
export interface SearchIndexContractFactory {
  /** The schema the suite's documents follow (built from the real registry). */
  readonly schema: SearchSchema;
  /**
   * Opens an empty index for one test (a fresh file; on a shared Elasticsearch cluster, indices under a name prefix
   * of the test's own). The suite closes what it returns, then calls `dispose`.
   */
  create(): Promise<SearchIndexUnderTest>;
}

/** One test's index, and how to reach the same data again. */
export type SearchIndexUnderTest = IndexUnderTest<SearchIndex>;

interface DatasetFixture {
  readonly name: string;
  readonly platform?: string;
  readonly origin?: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly owners?: readonly string[];
  readonly removed?: boolean;
  readonly browsePaths?: readonly string[];
  readonly createdAt?: number;
}

/** A dataset document as the search indexer builds it from the dataset's aspects. */
export function datasetDocument(fixture: DatasetFixture): SearchDocument {
  const platform = fixture.platform ?? 'hive';
  const origin = fixture.origin ?? 'PROD';
  const urn = `urn:li:dataset:(urn:li:dataPlatform:${platform},${fixture.name},${origin})`;
  const aspects: Record<string, FieldContribution> = {
    datasetKey: { platform: [`urn:li:dataPlatform:${platform}`], id: [fixture.name], origin: [origin] },
    dataPlatformInstance: { platform: [`urn:li:dataPlatform:${platform}`] },
  };
  if (fixture.description !== undefined || fixture.createdAt !== undefined) {
    aspects['datasetProperties'] = {
      ...(fixture.description === undefined ? {} : { description: [fixture.description], hasDescription: [true] }),
      ...(fixture.createdAt === undefined ? {} : { createdAt: [fixture.createdAt] }),
    };
  }
  if (fixture.tags !== undefined) {
    aspects['globalTags'] = {
      tags: fixture.tags.map((tag) => `urn:li:tag:${tag}`),
      hasTags: [fixture.tags.length > 0],
    };
  }
  if (fixture.owners !== undefined) {
    aspects['ownership'] = {
      owners: fixture.owners.map((owner) => `urn:li:corpuser:${owner}`),
      hasOwners: [fixture.owners.length > 0],
    };
  }
  if (fixture.removed !== undefined) aspects['status'] = { removed: [fixture.removed] };
  if (fixture.browsePaths !== undefined) aspects['browsePaths'] = { browsePaths: [...fixture.browsePaths] };
  return { urn, entityType: 'dataset', aspects };
}

/**
 * The search-index contract (the semantics stated on {@link SearchIndex}), as one jest `describe` block to run
 * against every adapter. Every read goes through the port.
 */
export function describeSearchIndexContract(name: string, factory: SearchIndexContractFactory): void {
  const open = trackedIndices(() => factory.create());

  async function openWith(...fixtures: DatasetFixture[]): Promise<SearchIndex> {
    const { index } = await open();
    await index.write(fixtures.map((fixture) => ({ put: datasetDocument(fixture) })));
    return index;
  }

  const urnOf = (fixtureName: string, platform = 'hive', origin = 'PROD'): string =>
    `urn:li:dataset:(urn:li:dataPlatform:${platform},${fixtureName},${origin})`;

  async function searchUrns(
    index: SearchIndex,
    input: string,
    filter: readonly (readonly Criterion[])[] = [],
  ): Promise<string[]> {
    const page = await index.search({ entityType: 'dataset', input, filter, start: 0, count: 100 });
    return page.hits.map((hit) => hit.urn);
  }

  const criterion = (
    field: string,
    values: string[],
    condition: Criterion['condition'] = 'EQUAL',
    negated = false,
  ): Criterion => ({ field, values, condition, negated });

  describe(`${name} satisfies the SearchIndex contract`, () => {
    describe('documents', () => {
      it('returns the documents it stores, replaces them whole, and removes them', async () => {
        const { index } = await open();
        const first = datasetDocument({ name: 'db.first', description: 'one', tags: ['A'] });
        await index.write([{ put: first }]);
        expect(await index.documents([first.urn, urnOf('db.absent')])).toEqual(new Map([[first.urn, first]]));

        const replaced = datasetDocument({ name: 'db.first', description: 'two' });
        await index.write([{ put: replaced }]);
        expect((await index.documents([first.urn])).get(first.urn)).toEqual(replaced);
        expect(await searchUrns(index, 'one')).toEqual([]);
        expect(await searchUrns(index, 'tags:A')).toEqual([]);
        expect(await searchUrns(index, 'two')).toEqual([first.urn]);

        await index.write([{ remove: first.urn }, { remove: urnOf('db.never') }]);
        expect(await index.documents([first.urn])).toEqual(new Map());
        expect(await searchUrns(index, '*')).toEqual([]);
      });

      it('applies a write call all or nothing', async () => {
        const { index } = await open();
        const kept = datasetDocument({ name: 'db.kept' });
        await expect(
          index.write([{ put: kept }, { put: { urn: 'urn:li:nonsense:x', entityType: 'nonsense', aspects: {} } }]),
        ).rejects.toThrow(ValidationError);
        expect(await index.documents([kept.urn])).toEqual(new Map());
      });

      it('keeps what it stored across handles', async () => {
        const { index, reopen } = await open();
        await index.write([{ put: datasetDocument({ name: 'db.durable', description: 'kept' }) }]);
        await index.close();
        const again = await reopen();
        expect(await searchUrns(again, 'kept')).toEqual([urnOf('db.durable')]);
      });
    });

    describe('last change time', () => {
      const changed = (fixture: DatasetFixture, lastChangedAt: number): SearchDocument => ({
        ...datasetDocument(fixture),
        lastChangedAt,
      });

      it("stores a document's lastChangedAt, replaces it with the document, and keeps it across handles", async () => {
        const { index, reopen } = await open();
        const first = changed({ name: 'db.changed' }, 1_700_000_000_000);
        const never = datasetDocument({ name: 'db.unchanged' });
        await index.write([{ put: first }, { put: never }]);
        expect(await index.documents([first.urn, never.urn])).toEqual(
          new Map([
            [first.urn, first],
            [never.urn, never],
          ]),
        );
        const later = changed({ name: 'db.changed', description: 'two' }, 1_700_000_100_000);
        await index.write([{ put: later }]);
        await index.close();
        const again = await reopen();
        expect((await again.documents([first.urn])).get(first.urn)).toEqual(later);
        expect((await again.documents([never.urn])).get(never.urn)?.lastChangedAt).toBeUndefined();
      });

      it('indexes lastChangedAt as a date field of every entity type, which filters compare as a range', async () => {
        const { index } = await open();
        for (const entity of index.schema.entities()) {
          expect(entity.field('lastChangedAt')?.type).toBe('DATETIME');
        }
        await index.write([
          { put: changed({ name: 'db.old' }, 1_600_000_000_000) },
          { put: changed({ name: 'db.new' }, 1_700_000_000_000) },
          { put: datasetDocument({ name: 'db.undated' }) },
        ]);
        const since = (time: number) => [[criterion('lastChangedAt', [String(time)], 'GREATER_THAN_OR_EQUAL_TO')]];
        expect(await searchUrns(index, '*', since(1_650_000_000_000))).toEqual([urnOf('db.new')]);
        expect((await searchUrns(index, '*', since(1_600_000_000_000))).sort()).toEqual(
          [urnOf('db.new'), urnOf('db.old')].sort(),
        );
        expect(await searchUrns(index, '*', [[criterion('lastChangedAt', [], 'IS_NULL')]])).toEqual([
          urnOf('db.undated'),
        ]);
      });

      it("takes lastChangedAt from the document only, never from an aspect's contribution", async () => {
        const { index } = await open();
        const base = datasetDocument({ name: 'db.spoofed' });
        await index.write([
          { put: { ...base, aspects: { ...base.aspects, datasetProperties: { lastChangedAt: [1_900_000_000_000] } } } },
        ]);
        expect(await searchUrns(index, '*', [[criterion('lastChangedAt', [], 'EXISTS')]])).toEqual([]);
      });
    });

    describe('query text', () => {
      const fixtures: DatasetFixture[] = [
        { name: 'sales.orders', description: 'Every order placed in the shop', tags: ['Engineering'], owners: ['ann'] },
        { name: 'sales.customers', description: 'Customer master data', tags: ['Finance'], owners: ['bob'] },
        { name: 'hr.employees', description: 'People and their orders of merit', owners: ['ann'] },
        { name: 'SampleHdfsDataset', platform: 'hdfs', description: 'Sample data' },
      ];

      it('matches a word in any default field, ignoring case and accents', async () => {
        const index = await openWith(...fixtures);
        expect(await searchUrns(index, 'ORDERS')).toEqual([urnOf('sales.orders'), urnOf('hr.employees')]);
        expect(await searchUrns(index, 'mastér')).toEqual([urnOf('sales.customers')]);
      });

      it('ANDs the terms, with or without AND', async () => {
        const index = await openWith(...fixtures);
        expect(await searchUrns(index, 'orders sales')).toEqual([urnOf('sales.orders')]);
        expect(await searchUrns(index, 'orders AND sales')).toEqual([urnOf('sales.orders')]);
        expect(await searchUrns(index, 'orders nothing')).toEqual([]);
      });

      it('ORs with OR, negates with NOT and -, and groups with parentheses', async () => {
        const index = await openWith(...fixtures);
        expect(await searchUrns(index, 'customers OR employees')).toEqual(
          [urnOf('hr.employees'), urnOf('sales.customers')].sort(),
        );
        expect(await searchUrns(index, 'orders NOT merit')).toEqual([urnOf('sales.orders')]);
        expect(await searchUrns(index, 'orders -merit')).toEqual([urnOf('sales.orders')]);
        expect(await searchUrns(index, '-sales')).toEqual([urnOf('SampleHdfsDataset', 'hdfs'), urnOf('hr.employees')]);
        expect(await searchUrns(index, '(customers OR employees) ann')).toEqual([]);
        expect(await searchUrns(index, '(customers OR employees) AND owners:ann')).toEqual([urnOf('hr.employees')]);
      });

      it('matches `field:value` in that field only, a URN field by its parts', async () => {
        const index = await openWith(...fixtures);
        expect(await searchUrns(index, 'tags:Engineering')).toEqual([urnOf('sales.orders')]);
        expect(await searchUrns(index, 'tags:urn:li:tag:Finance')).toEqual([urnOf('sales.customers')]);
        expect(await searchUrns(index, 'owners:ann')).toEqual([urnOf('hr.employees'), urnOf('sales.orders')].sort());
        expect(await searchUrns(index, 'platform:hdfs')).toEqual([urnOf('SampleHdfsDataset', 'hdfs')]);
        expect(await searchUrns(index, 'description:sales')).toEqual([]);
        expect(await searchUrns(index, 'tags:"Engineering"')).toEqual([urnOf('sales.orders')]);
        expect(await searchUrns(index, 'owners:(bob OR ann) customers')).toEqual([urnOf('sales.customers')]);
      });

      it('leaves fields that are not queried by default out of plain terms', async () => {
        const index = await openWith(...fixtures);
        // owners are matched only when named (queryByDefault false), as in DataHub.
        expect(await searchUrns(index, 'bob')).toEqual([]);
      });

      it('reads a `word:` that is no field of the entity as text', async () => {
        const index = await openWith(...fixtures);
        expect(await searchUrns(index, 'sales:orders')).toEqual([urnOf('sales.orders')]);
      });

      it('matches quoted phrases with the words in order', async () => {
        const index = await openWith(...fixtures);
        expect(await searchUrns(index, '"order placed"')).toEqual([urnOf('sales.orders')]);
        expect(await searchUrns(index, '"placed order"')).toEqual([]);
        expect(await searchUrns(index, '"order pla"*')).toEqual([urnOf('sales.orders')]);
      });

      it('matches word prefixes, wildcards, camel-case parts, and everything for *', async () => {
        const index = await openWith(...fixtures);
        expect(await searchUrns(index, 'custom*')).toEqual([urnOf('sales.customers')]);
        expect(await searchUrns(index, 'sample')).toEqual([urnOf('SampleHdfsDataset', 'hdfs')]);
        expect(await searchUrns(index, 'id:*ees')).toEqual([urnOf('hr.employees')]);
        expect(await searchUrns(index, 'id:sales.c?stomers')).toEqual([urnOf('sales.customers')]);
        expect(await searchUrns(index, '*')).toHaveLength(fixtures.length);
        expect(await searchUrns(index, '')).toHaveLength(fixtures.length);
      });

      it('rejects malformed text', async () => {
        const index = await openWith(...fixtures);
        for (const input of ['"unclosed', '(open', 'orders OR', 'NOT', 'a )']) {
          await expect(index.search({ entityType: 'dataset', input, filter: [], start: 0, count: 10 })).rejects.toThrow(
            ValidationError,
          );
        }
      });
    });

    describe('ranking and paging', () => {
      it('ranks a match in a boosted field above a match in a plain one, ties by URN', async () => {
        const index = await openWith(
          { name: 'a.plain', description: 'mentions revenue once' },
          { name: 'b.revenue', description: 'nothing else' },
          { name: 'c.revenue', description: 'nothing else' },
        );
        expect(await searchUrns(index, 'revenue')).toEqual([urnOf('b.revenue'), urnOf('c.revenue'), urnOf('a.plain')]);
      });

      it('pages stably and counts every match', async () => {
        const names = Array.from({ length: 25 }, (_unused, i) => `db.table${String(i).padStart(2, '0')}`);
        const index = await openWith(...names.map((tableName) => ({ name: tableName, description: 'same words' })));
        const seen: string[] = [];
        for (let start = 0; start < 30; start += 10) {
          const page = await index.search({ entityType: 'dataset', input: 'same', filter: [], start, count: 10 });
          expect(page.total).toBe(25);
          seen.push(...page.hits.map((hit) => hit.urn));
        }
        expect(seen).toEqual(names.map((tableName) => urnOf(tableName)));
        const empty = await index.search({ entityType: 'dataset', input: 'same', filter: [], start: 0, count: 0 });
        expect(empty).toMatchObject({ total: 25, hits: [] });
      });

      it('rejects negative paging, a count over 10000, and an unknown entity', async () => {
        const index = await openWith({ name: 'db.x' });
        const base = { entityType: 'dataset', input: '*', filter: [], start: 0, count: 10 };
        await expect(index.search({ ...base, start: -1 })).rejects.toThrow(ValidationError);
        await expect(index.search({ ...base, count: -1 })).rejects.toThrow(ValidationError);
        await expect(index.search({ ...base, count: 10_001 })).rejects.toThrow('Result count exceeds limit of 10000');
        await expect(index.search({ ...base, entityType: 'nonsense' })).rejects.toThrow('Unknown entity: nonsense');
      });
    });

    describe('filters', () => {
      const fixtures: DatasetFixture[] = [
        { name: 'f.one', platform: 'hive', origin: 'PROD', tags: ['A'], createdAt: 100, description: 'fixture' },
        { name: 'f.two', platform: 'kafka', origin: 'PROD', tags: ['A', 'B'], createdAt: 200, description: 'fixture' },
        { name: 'f.three', platform: 'kafka', origin: 'DEV', createdAt: 300, description: 'fixture' },
      ];
      const one = urnOf('f.one');
      const two = urnOf('f.two', 'kafka');
      const three = urnOf('f.three', 'kafka', 'DEV');
      // Each filter is checked with no text (`*`) and with a text every fixture matches: an engine may evaluate a
      // filter differently beside full text. Compared as sets, as ranking is not what these tests are about.
      const texts = ['*', 'fixture'];
      const filtered = async (index: SearchIndex, filter: readonly (readonly Criterion[])[]): Promise<string[]> => {
        const answers = await Promise.all(texts.map(async (text) => (await searchUrns(index, text, filter)).sort()));
        expect(answers[1]).toEqual(answers[0]);
        return answers[0] ?? [];
      };

      it('ANDs the criteria of a group and ORs the groups', async () => {
        const index = await openWith(...fixtures);
        const kafka = criterion('platform', ['urn:li:dataPlatform:kafka']);
        const prod = criterion('origin', ['PROD']);
        expect(await filtered(index, [[kafka, prod]])).toEqual([two]);
        expect(await filtered(index, [[kafka, prod], [criterion('origin', ['DEV'])]])).toEqual([three, two]);
        expect(await filtered(index, [[criterion('tags', ['urn:li:tag:B', 'urn:li:tag:A'])]])).toEqual([one, two]);
        expect(await filtered(index, [[prod, criterion('tags', ['urn:li:tag:B'], 'EQUAL', true)]])).toEqual([one]);
        // A group of exclusions only, beside a group of one requirement.
        expect(
          await filtered(index, [
            [criterion('origin', ['PROD'], 'EQUAL', true), criterion('tags', [], 'EXISTS', true)],
            [criterion('tags', ['urn:li:tag:B'])],
          ]),
        ).toEqual([three, two]);
      });

      it('implements every condition, negation, and a `.keyword` suffix', async () => {
        const index = await openWith(...fixtures);
        const search = (c: Criterion) => filtered(index, [[c]]);
        expect(await search(criterion('origin.keyword', ['PROD']))).toEqual([one, two]);
        expect(await search(criterion('origin', ['prod']))).toEqual([]);
        expect(await search(criterion('id', ['TW'], 'CONTAIN'))).toEqual([two]);
        expect(await search(criterion('id', ['F.T'], 'START_WITH'))).toEqual([three, two]);
        expect(await search(criterion('id', ['ONE'], 'END_WITH'))).toEqual([one]);
        expect(await search(criterion('createdAt', ['200'], 'GREATER_THAN'))).toEqual([three]);
        expect(await search(criterion('createdAt', ['200'], 'GREATER_THAN_OR_EQUAL_TO'))).toEqual([three, two]);
        expect(await search(criterion('createdAt', ['200'], 'LESS_THAN'))).toEqual([one]);
        expect(await search(criterion('createdAt', ['200'], 'LESS_THAN_OR_EQUAL_TO'))).toEqual([one, two]);
        expect(await search(criterion('createdAt', ['200']))).toEqual([two]);
        expect(await search(criterion('tags', [], 'EXISTS'))).toEqual([one, two]);
        expect(await search(criterion('tags', [], 'IS_NULL'))).toEqual([three]);
        expect(await search(criterion('tags', [], 'EXISTS', true))).toEqual([three]);
        expect(await search(criterion('tags', [], 'IS_NULL', true))).toEqual([one, two]);
        expect(await search(criterion('origin', ['PROD'], 'EQUAL', true))).toEqual([three]);
        expect(await search(criterion('origin', [], 'EQUAL'))).toEqual([one, three, two]);
      });

      it('matches long values exactly', async () => {
        const long = `${'x'.repeat(300)}.table`;
        const index = await openWith(...fixtures, { name: long, description: 'fixture' });
        expect(await filtered(index, [[criterion('id', [long])]])).toEqual([urnOf(long)]);
        expect(await filtered(index, [[criterion('id', [`${long}.other`])]])).toEqual([]);
        expect(await filtered(index, [[criterion('id', [long], 'EQUAL', true), criterion('origin', ['DEV'])]])).toEqual(
          [three],
        );
      });

      it('decides a criterion on a field the entity lacks as a field no document has, never an error', async () => {
        const index = await openWith(...fixtures);
        const nonsense = (condition: Criterion['condition'] = 'EQUAL', negated = false) =>
          criterion('nonsense.keyword', ['x'], condition, negated);
        expect(await filtered(index, [[nonsense()]])).toEqual([]);
        expect(await filtered(index, [[nonsense('EXISTS')]])).toEqual([]);
        expect(await filtered(index, [[nonsense('EQUAL', true)]])).toEqual([one, three, two]);
        expect(await filtered(index, [[nonsense('IS_NULL')]])).toEqual([one, three, two]);
        expect(await filtered(index, [[nonsense('IS_NULL', true)]])).toEqual([]);
        // The group that cannot hold drops out of the OR; the other still selects.
        expect(await filtered(index, [[nonsense()], [criterion('origin', ['DEV'])]])).toEqual([three]);
        expect(await filtered(index, [[criterion('origin', ['DEV']), nonsense('EQUAL', true)]])).toEqual([three]);
        expect(
          (await index.search({ entityType: 'dataset', input: '*', filter: [[nonsense()]], start: 0, count: 10 }))
            .total,
        ).toBe(0);
      });

      it('rejects an unknown condition', async () => {
        const index = await openWith(...fixtures);
        await expect(
          searchUrns(index, '*', [[criterion('origin', ['x'], 'SOUNDS_LIKE' as Criterion['condition'])]]),
        ).rejects.toThrow('Unsupported condition: SOUNDS_LIKE');
        await expect(
          searchUrns(index, '*', [[criterion('nonsense', ['x'], 'SOUNDS_LIKE' as Criterion['condition'])]]),
        ).rejects.toThrow('Unsupported condition: SOUNDS_LIKE');
      });
    });

    describe('soft delete', () => {
      it('hides removed documents from search, browse and autocomplete unless a criterion names removed', async () => {
        const index = await openWith(
          { name: 'gone.table', removed: true, browsePaths: ['/prod/hive/gone'] },
          { name: 'gone.kept', removed: false, browsePaths: ['/prod/hive/gone'] },
        );
        expect(await searchUrns(index, 'gone')).toEqual([urnOf('gone.kept')]);
        expect(await searchUrns(index, 'gone', [[criterion('removed', ['true'])]])).toEqual([urnOf('gone.table')]);
        const browse = await index.browse({
          entityType: 'dataset',
          path: '/prod/hive/gone',
          filter: [],
          start: 0,
          limit: 10,
        });
        expect(browse.entities.map((entity) => entity.urn)).toEqual([urnOf('gone.kept')]);
        const suggested = await index.autocomplete({ entityType: 'dataset', query: 'gone', filter: [], limit: 10 });
        expect(suggested.urns).toEqual([urnOf('gone.kept')]);
      });
    });

    describe('facets and matched fields', () => {
      it('counts the values of every facet field over all matches', async () => {
        const index = await openWith(
          { name: 'x.one', platform: 'hive', tags: ['A'], owners: ['ann'], description: 'shared' },
          { name: 'x.two', platform: 'kafka', tags: ['A', 'B'], description: 'shared' },
          { name: 'x.three', platform: 'kafka', description: 'other' },
        );
        const page = await index.search({ entityType: 'dataset', input: 'shared', filter: [], start: 0, count: 1 });
        const facets = Object.fromEntries(page.facets.map((facet) => [facet.field, facet.counts]));
        expect(facets['platform']).toEqual({ 'urn:li:dataPlatform:hive': 1, 'urn:li:dataPlatform:kafka': 1 });
        expect(facets['tags']).toEqual({ 'urn:li:tag:A': 2, 'urn:li:tag:B': 1 });
        expect(facets['owners']).toEqual({ 'urn:li:corpuser:ann': 1 });
        expect(facets['origin']).toEqual({ PROD: 2 });
        expect(page.facets.find((facet) => facet.field === 'tags')?.displayName).toBe('Tagged With');
      });

      it('keeps facet counts exact across replacements, removals and soft deletes, for queries matching (nearly) all', async () => {
        const index = await openWith(
          { name: 'c.one', platform: 'hive', tags: ['A'] },
          { name: 'c.two', platform: 'hive', tags: ['A', 'B'] },
          { name: 'c.three', platform: 'kafka', tags: ['B'] },
          { name: 'c.four', platform: 'kafka' },
        );
        await index.write([
          { put: datasetDocument({ name: 'c.one', platform: 'hive', tags: ['C'] }) },
          { remove: urnOf('c.four', 'kafka') },
          { put: datasetDocument({ name: 'c.three', platform: 'kafka', tags: ['B'], removed: true }) },
          { put: datasetDocument({ name: 'c.five', platform: 'mysql', tags: ['A'] }) },
        ]);
        const facetsOf = async (input: string, filter: readonly (readonly Criterion[])[] = []) => {
          const page = await index.search({ entityType: 'dataset', input, filter, start: 0, count: 0 });
          return Object.fromEntries(page.facets.map((facet) => [facet.field, facet.counts]));
        };
        const everything = await facetsOf('*');
        expect(everything['tags']).toEqual({ 'urn:li:tag:A': 2, 'urn:li:tag:B': 1, 'urn:li:tag:C': 1 });
        expect(everything['platform']).toEqual({ 'urn:li:dataPlatform:hive': 2, 'urn:li:dataPlatform:mysql': 1 });
        // All visible but one: c.five is not a hit.
        const most = await facetsOf('c.one OR c.two');
        expect(most['tags']).toEqual({ 'urn:li:tag:A': 1, 'urn:li:tag:B': 1, 'urn:li:tag:C': 1 });
        const withRemoved = await facetsOf('*', [[criterion('removed', ['true', 'false'])]]);
        expect(withRemoved['tags']).toEqual({ 'urn:li:tag:A': 2, 'urn:li:tag:B': 2, 'urn:li:tag:C': 1 });
      });

      it('never matches a phrase across two values of a field', async () => {
        const index = await openWith({ name: 'v.one', tags: ['Alpha', 'Beta'] });
        // Without a break between values, "alpha" (the end of the first) and "urn" (the start of the second) would be adjacent.
        expect(await searchUrns(index, 'tags:"alpha urn"')).toEqual([]);
        expect(await searchUrns(index, 'tags:alpha tags:beta')).toEqual([urnOf('v.one')]);
      });

      it('reports the fields and values that matched the text', async () => {
        const index = await openWith({ name: 'm.orders', description: 'all orders', tags: ['Engineering'] });
        const page = await index.search({
          entityType: 'dataset',
          input: 'tags:Engineering',
          filter: [],
          start: 0,
          count: 10,
        });
        expect(page.hits[0]?.matchedFields).toEqual([{ name: 'tags', value: 'urn:li:tag:Engineering' }]);
        const orders = await index.search({ entityType: 'dataset', input: 'orders', filter: [], start: 0, count: 10 });
        expect(orders.hits[0]?.matchedFields).toEqual(
          expect.arrayContaining([
            { name: 'id', value: 'm.orders' },
            { name: 'description', value: 'all orders' },
          ]),
        );
      });
    });

    describe('browse', () => {
      const fixtures: DatasetFixture[] = [
        { name: 'b.one', browsePaths: ['/prod/hive/sales'] },
        { name: 'b.two', browsePaths: ['/prod/hive/sales'] },
        { name: 'b.three', browsePaths: ['/prod/hive/hr'] },
        { name: 'b.four', browsePaths: ['/prod/hive'] },
        { name: 'b.five', browsePaths: ['/prod/kafka', '/dev/kafka'] },
      ];

      it('lists the next level with counts, the entities at this level, and the totals', async () => {
        const index = await openWith(...fixtures);
        const page = await index.browse({ entityType: 'dataset', path: '/prod/hive', filter: [], start: 0, limit: 10 });
        expect(page).toEqual({
          path: '/prod/hive',
          totalNumEntities: 4,
          numEntities: 1,
          groups: [
            { name: 'sales', count: 2 },
            { name: 'hr', count: 1 },
          ],
          entities: [{ urn: urnOf('b.four'), name: 'hive' }],
        });
        const root = await index.browse({ entityType: 'dataset', path: '/', filter: [], start: 0, limit: 10 });
        expect(root.groups).toEqual([
          { name: 'prod', count: 5 },
          { name: 'dev', count: 1 },
        ]);
        expect(root.totalNumEntities).toBe(5);
        const trailing = await index.browse({
          entityType: 'dataset',
          path: 'prod/hive/',
          filter: [],
          start: 0,
          limit: 10,
        });
        expect(trailing.groups).toEqual(page.groups);
      });

      it('pages over the groups first, then the entities', async () => {
        const index = await openWith(
          ...fixtures,
          { name: 'b.six', browsePaths: ['/prod/hive'] },
          { name: 'b.seven', browsePaths: ['/prod/hive'] },
        );
        const entityPage = (start: number, limit: number) =>
          index
            .browse({ entityType: 'dataset', path: '/prod/hive', filter: [], start, limit })
            .then((page) => page.entities.map((entity) => entity.urn));
        const atLevel = [urnOf('b.four'), urnOf('b.seven'), urnOf('b.six')];
        expect(await entityPage(0, 2)).toEqual([]);
        expect(await entityPage(0, 3)).toEqual(atLevel.slice(0, 1));
        expect(await entityPage(2, 2)).toEqual(atLevel.slice(0, 2));
        expect(await entityPage(4, 10)).toEqual(atLevel.slice(2));
      });

      it('applies filters', async () => {
        const index = await openWith(...fixtures, { name: 'b.kafka', platform: 'kafka', browsePaths: ['/prod/hive'] });
        const page = await index.browse({
          entityType: 'dataset',
          path: '/prod/hive',
          filter: [[criterion('platform', ['urn:li:dataPlatform:kafka'])]],
          start: 0,
          limit: 10,
        });
        expect(page).toMatchObject({ totalNumEntities: 1, groups: [], entities: [{ urn: urnOf('b.kafka', 'kafka') }] });
      });
    });

    describe('limits: checked alike on every engine, before the engine is asked', () => {
      const fixtures: DatasetFixture[] = [
        { name: 'l.one', origin: 'PROD', browsePaths: ['/prod/l'], description: 'alpha beta gamma' },
        { name: 'l.two', origin: 'PROD', browsePaths: ['/prod/l'], description: 'beta' },
        { name: 'l.three', origin: 'DEV', browsePaths: ['/prod/l'], description: 'gamma' },
      ];
      const one = urnOf('l.one');
      const two = urnOf('l.two');
      const three = urnOf('l.three', 'hive', 'DEV');
      const words = (count: number, prefix = 'word') => Array.from({ length: count }, (_unused, i) => `${prefix}${i}`);
      /** `k` groups, each an OR holding an AND: 2k levels of nesting, 2k + 1 terms; matches what `alpha` matches. */
      const alternating = (k: number): string => (k === 0 ? 'alpha' : `nothing${k} OR alpha (${alternating(k - 1)})`);
      const search = (index: SearchIndex, input: string, filter: Filter = []) =>
        index.search({ entityType: 'dataset', input, filter, start: 0, count: 100 });

      it('answers search text at the limits of terms and nesting', async () => {
        const index = await openWith(...fixtures);
        const urns = async (input: string) => (await search(index, input)).hits.map((hit) => hit.urn).sort();
        // Terms: ANDed, ORed, negated, and in a phrase (a word each).
        expect(await urns(['alpha', ...words(MAX_QUERY_TERMS - 1, '-no')].join(' '))).toEqual([one]);
        expect(await urns([...words(MAX_QUERY_TERMS - 1, 'no'), 'gamma'].join(' OR '))).toEqual([one, three]);
        expect(await urns(`"alpha beta gamma" ${words(MAX_QUERY_TERMS - 3, '-no').join(' ')}`)).toEqual([one]);
        expect(await urns(words(MAX_QUERY_TERMS, 'no*').join(' OR '))).toEqual([]);
        // Nesting: negations (an even number: `alpha` itself), and groups of OR and AND.
        expect(await urns(`${'-'.repeat(MAX_QUERY_NESTING)}alpha`)).toEqual([one]);
        expect(await urns(`${'NOT '.repeat(MAX_QUERY_NESTING - 1)}gamma`)).toEqual([two]);
        expect(await urns(alternating(MAX_QUERY_NESTING / 2))).toEqual([one]);
        expect(await urns(`${'('.repeat(MAX_QUERY_NESTING)}beta${')'.repeat(MAX_QUERY_NESTING)}`)).toEqual([one, two]);
      });

      it.each([
        ['400 negated terms', '-a '.repeat(400), `limit of ${MAX_QUERY_TERMS} `],
        ['300 NOT terms', 'NOT a '.repeat(300), `limit of ${MAX_QUERY_TERMS} `],
        ['one term over the limit', words(MAX_QUERY_TERMS + 1).join(' '), `limit of ${MAX_QUERY_TERMS} `],
        ['a phrase over the limit', `"${words(MAX_QUERY_TERMS + 1).join(' ')}"`, `limit of ${MAX_QUERY_TERMS} `],
        ['2000 parentheses', `${'('.repeat(2000)}a${')'.repeat(2000)}`, `limit of ${MAX_QUERY_NESTING} `],
        ['2000 negations', `${'-'.repeat(2000)}a`, `limit of ${MAX_QUERY_NESTING} `],
        ['one negation too many', `${'NOT '.repeat(MAX_QUERY_NESTING + 1)}a`, `limit of ${MAX_QUERY_NESTING} `],
        [
          'one group too many',
          `(${'('.repeat(MAX_QUERY_NESTING)}a${')'.repeat(MAX_QUERY_NESTING)})`,
          `limit of ${MAX_QUERY_NESTING} `,
        ],
        ['AND within OR too deep', alternating(MAX_QUERY_NESTING / 2 + 1), `limit of ${MAX_QUERY_NESTING} `],
      ])('refuses search text of %s with a ValidationError naming the limit', async (_case, input, limit) => {
        const index = await openWith(...fixtures);
        const refusal = search(index, input);
        await expect(refusal).rejects.toThrow(ValidationError);
        await expect(refusal).rejects.toThrow(limit);
      });

      /** Filters at the limits, each with the URNs it keeps. */
      const perCriterion = MAX_FILTER_VALUES / MAX_FILTER_CRITERIA;
      const misses = (i: number) => words(perCriterion - 1, `miss${i}x`);
      const atTheLimits: [string, Filter, string[]][] = [
        [
          'one group of CONTAIN criteria',
          [
            Array.from({ length: MAX_FILTER_CRITERIA }, (_unused, i) =>
              criterion('id', [...misses(i), 'ONE'], 'CONTAIN'),
            ),
          ],
          [one],
        ],
        [
          'one group of EQUAL criteria',
          [Array.from({ length: MAX_FILTER_CRITERIA }, (_unused, i) => criterion('origin', [...misses(i), 'PROD']))],
          [one, two],
        ],
        [
          'one group of negated criteria',
          [Array.from({ length: MAX_FILTER_CRITERIA }, (_unused, i) => criterion('origin', misses(i), 'EQUAL', true))],
          [one, three, two],
        ],
        [
          'as many groups as criteria',
          Array.from({ length: MAX_FILTER_CRITERIA }, (_unused, i) => [
            criterion('id', i === 0 ? ['l.TWO'] : misses(i), i % 2 === 0 ? 'START_WITH' : 'CONTAIN'),
          ]),
          [two],
        ],
        [
          'one criterion of every value',
          [[criterion('id', [...words(MAX_FILTER_VALUES - 1, 'miss'), 'three'], 'END_WITH')]],
          [three],
        ],
      ];

      it.each(atTheLimits)(
        'answers a filter at the limits: %s, in search, browse and autocomplete',
        async (_case, filter, kept) => {
          const index = await openWith(...fixtures);
          for (const input of ['*', 'beta OR gamma OR alpha']) {
            expect((await search(index, input, filter)).hits.map((hit) => hit.urn).sort()).toEqual(kept);
          }
          const browse = await index.browse({ entityType: 'dataset', path: '/prod/l', filter, start: 0, limit: 10 });
          expect(browse.entities.map((entity) => entity.urn).sort()).toEqual(kept);
          const suggested = await index.autocomplete({ entityType: 'dataset', query: 'l', filter, limit: 10 });
          expect([...suggested.urns].sort()).toEqual(kept);
        },
      );

      it.each([
        [
          'a group of criteria too many',
          [Array.from({ length: MAX_FILTER_CRITERIA + 1 }, () => criterion('origin', ['PROD']))],
          `limit of ${MAX_FILTER_CRITERIA} `,
        ],
        [
          'groups of criteria too many',
          Array.from({ length: MAX_FILTER_CRITERIA + 1 }, () => [criterion('tags', [], 'EXISTS')]),
          `limit of ${MAX_FILTER_CRITERIA} `,
        ],
        [
          'a thousand criteria',
          [Array.from({ length: 1000 }, () => criterion('origin', ['PROD']))],
          `limit of ${MAX_FILTER_CRITERIA} `,
        ],
        [
          'values too many',
          [[criterion('id', words(MAX_FILTER_VALUES + 1), 'CONTAIN')]],
          `limit of ${MAX_FILTER_VALUES} `,
        ],
      ] as [string, Filter, string][])(
        'refuses a filter of %s with a ValidationError naming the limit, in search, browse and autocomplete',
        async (_case, filter, limit) => {
          const index = await openWith(...fixtures);
          // One request at a time: each refusal is awaited as soon as it is made.
          for (const request of [
            () => search(index, '*', filter),
            () => search(index, 'beta', filter),
            () => index.browse({ entityType: 'dataset', path: '/prod', filter, start: 0, limit: 10 }),
            () => index.autocomplete({ entityType: 'dataset', query: 'l', filter, limit: 10 }),
          ]) {
            const refusal = request();
            await expect(refusal).rejects.toThrow(ValidationError);
            await expect(refusal).rejects.toThrow(limit);
          }
        },
      );
    });

    describe('autocomplete', () => {
      const fixtures: DatasetFixture[] = [
        { name: 'test_dataset_1' },
        { name: 'test_dataset_2' },
        { name: 'other.test_table' },
        { name: 'unrelated', platform: 'kafka' },
      ];

      it('suggests values whose start, then a later word, begins with the query, up to the limit', async () => {
        const index = await openWith(...fixtures);
        const page = await index.autocomplete({ entityType: 'dataset', query: 'Test_Dat', filter: [], limit: 10 });
        expect(page.suggestions).toEqual(['test_dataset_1', 'test_dataset_2']);
        const words = await index.autocomplete({ entityType: 'dataset', query: 'test', filter: [], limit: 10 });
        expect(words.suggestions).toEqual(['test_dataset_1', 'test_dataset_2', 'other.test_table']);
        const limited = await index.autocomplete({ entityType: 'dataset', query: 'test', filter: [], limit: 1 });
        expect(limited).toEqual({ suggestions: ['test_dataset_1'], urns: [urnOf('test_dataset_1')] });
      });

      it('applies filters and a field restriction', async () => {
        const index = await openWith(...fixtures);
        const page = await index.autocomplete({
          entityType: 'dataset',
          query: 'u',
          filter: [[criterion('platform', ['urn:li:dataPlatform:kafka'])]],
          limit: 10,
        });
        expect(page.suggestions).toEqual(['unrelated']);
        await expect(
          index.autocomplete({ entityType: 'dataset', query: 'u', field: 'nonsense', filter: [], limit: 10 }),
        ).rejects.toThrow(ValidationError);
      });
    });

    describe('clear', () => {
      const before: DatasetFixture[] = [
        {
          name: 'old.orders',
          description: 'old orders of the shop',
          tags: ['A'],
          owners: ['ann'],
          browsePaths: ['/prod/hive/old'],
          createdAt: 100,
        },
        { name: 'old.gone', description: 'old orders, removed', removed: true, browsePaths: ['/prod/hive/old'] },
        { name: 'kept.name', description: 'orders before', tags: ['B'], browsePaths: ['/prod/kafka'] },
      ];
      const after: DatasetFixture[] = [
        { name: 'kept.name', description: 'orders after', tags: ['C'], browsePaths: ['/dev/kafka'] },
        { name: 'new.orders', description: 'new orders', tags: ['C'], owners: ['bob'], browsePaths: ['/dev/hive'] },
      ];
      const user: SearchDocument = { urn: 'urn:li:corpuser:contract-clear', entityType: 'corpuser', aspects: {} };
      const urns = [...before, ...after].map((fixture) => urnOf(fixture.name)).concat(user.urn);
      const puts = (fixtures: readonly DatasetFixture[]) =>
        fixtures.map((fixture) => ({ put: datasetDocument(fixture) }));

      /**
       * What every kind of read answers, searches as sets (a cleared engine may score otherwise than a new one, e.g.
       * Elasticsearch counting deleted documents in its statistics until they are merged away).
       */
      async function reads(index: SearchIndex): Promise<Record<string, unknown>> {
        const search = async (input: string, filter: Filter = [], entityType = 'dataset') => {
          const page = await index.search({ entityType, input, filter, start: 0, count: 10 });
          return { total: page.total, urns: page.hits.map((hit) => hit.urn).sort(), facets: page.facets };
        };
        const browse = (path: string) => index.browse({ entityType: 'dataset', path, filter: [], start: 0, limit: 10 });
        const suggest = (query: string) => index.autocomplete({ entityType: 'dataset', query, filter: [], limit: 10 });
        return {
          documents: await index.documents(urns),
          everything: await search('*'),
          words: await search('orders'),
          old: await search('old'),
          prefix: await search('ord*'),
          filtered: await search('orders', [[criterion('tags', ['urn:li:tag:A', 'urn:li:tag:C'])]]),
          removed: await search('*', [[criterion('removed', ['true'])]]),
          users: await search('*', [], 'corpuser'),
          root: await browse('/'),
          level: await browse('/prod/hive/old'),
          newLevel: await browse('/dev'),
          suggested: await suggest('old'),
          suggestedNew: await suggest('n'),
        };
      }

      it('removes every document: every read then answers as on an empty index, nothing kept from before', async () => {
        const { index } = await open();
        const { index: empty } = await open();
        await index.write([...puts(before), { put: user }]);
        // Read first, twice: nothing an engine keeps of these answers may outlive the clear.
        const full = await reads(index);
        expect(await reads(index)).toEqual(full);
        expect(full['everything']).toMatchObject({ total: 2 });
        expect(full['users']).toMatchObject({ total: 1 });

        await index.clear();
        const cleared = await reads(index);
        expect(cleared).toEqual(await reads(empty));
        expect(cleared['documents']).toEqual(new Map());
        for (const read of ['everything', 'words', 'old', 'prefix', 'filtered', 'removed', 'users']) {
          expect({ read, page: cleared[read] }).toMatchObject({ read, page: { total: 0, urns: [] } });
        }
        expect(cleared['root']).toMatchObject({ totalNumEntities: 0, numEntities: 0, groups: [], entities: [] });
        expect(cleared['suggested']).toEqual({ suggestions: [], urns: [] });
      });

      it('takes writes after a clear as a new index takes them', async () => {
        const { index } = await open();
        const { index: fresh } = await open();
        await index.write([...puts(before), { put: user }]);
        await reads(index);
        await index.clear();

        const writes = [...puts(after), { remove: urnOf('old.orders') }];
        await index.write(writes);
        await fresh.write(writes);
        const answers = await reads(index);
        expect(answers).toEqual(await reads(fresh));
        expect(answers['words']).toMatchObject({ total: 2, urns: [urnOf('kept.name'), urnOf('new.orders')].sort() });
        expect(answers['old']).toMatchObject({ total: 0 });
        expect(answers['documents']).toEqual(
          new Map(after.map((fixture) => [urnOf(fixture.name), datasetDocument(fixture)])),
        );

        // And writes after those, as on the new index.
        const more = [{ put: datasetDocument({ name: 'new.orders', description: 'renamed' }) }, { put: user }];
        await index.write(more);
        await fresh.write(more);
        expect(await reads(index)).toEqual(await reads(fresh));
      });

      it('keeps the clear across closing and reopening', async () => {
        const { index, reopen } = await open();
        await index.write([...puts(before), { put: user }]);
        await index.clear();
        await index.close();

        const again = await reopen();
        expect(await again.documents(urns)).toEqual(new Map());
        expect(await searchUrns(again, '*')).toEqual([]);
        await again.write(puts(after));
        expect((await searchUrns(again, 'orders')).sort()).toEqual([urnOf('kept.name'), urnOf('new.orders')].sort());
      });

      it('clears an empty index, and an index cleared already', async () => {
        const { index } = await open();
        await index.clear();
        await index.write(puts(before));
        await index.clear();
        await index.clear();
        expect(await searchUrns(index, '*')).toEqual([]);
        await index.write(puts(after));
        expect(await searchUrns(index, '*')).toHaveLength(2);
      });
    });
  });
}
