import type { JsonObject } from '@strata/model';
import { BadRequestError } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import { SqliteAspectStore } from '@strata/store';
import { TimelineReader, type TimelineLimits } from './timeline-reader';

const registry = testEntityRegistry();
const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
const WRITER = 'urn:li:corpuser:writer';
const NOW = 1_000_000;

let store: SqliteAspectStore;
let versionReads: number;

beforeEach(() => {
  store = new SqliteAspectStore({ path: ':memory:' });
  versionReads = 0;
  const getVersion = store.getVersion.bind(store);
  store.getVersion = (urn, aspect, version) => {
    versionReads++;
    return getVersion(urn, aspect, version);
  };
});

afterEach(async () => {
  await store.close();
});

/** Writes the next version of an aspect, at `createdOn`. */
async function write(aspect: string, value: JsonObject, createdOn: number, urn = DATASET): Promise<void> {
  const current = (await store.getVersion(urn, aspect, 0))?.version ?? 0;
  await store.commit({
    mutations: [
      {
        kind: 'put',
        urn,
        aspect,
        expectedVersion: current,
        row: { version: current + 1, value, systemMetadata: {}, createdOn, createdBy: WRITER },
      },
    ],
    outbox: [],
    appliedProposalIds: [],
  });
}

const tags = (...names: string[]) => ({ tags: names.map((name) => ({ tag: `urn:li:tag:${name}` })) });

function reader(limits?: TimelineLimits) {
  return new TimelineReader(store, registry, () => NOW, limits);
}

const query = (overrides: Partial<Parameters<TimelineReader['read']>[0]> = {}) => ({
  urn: DATASET,
  categories: ['TAG'] as const,
  startTime: -1,
  endTime: 0,
  raw: false,
  ...overrides,
});

describe('TimelineReader', () => {
  it('given tags written three times and a schema between, when read for TAG, then one transaction per tag version, versioned from the first instant', async () => {
    await write('datasetKey', { platform: 'urn:li:dataPlatform:hive', name: 'db.orders', origin: 'PROD' }, 100);
    await write('globalTags', tags('pii'), 100);
    await write('schemaMetadata', { fields: [] }, 150);
    await write('globalTags', tags('pii', 'gold'), 200);
    await write('globalTags', tags('gold'), 300);
    versionReads = 0;

    const { transactions, coveredFrom } = await reader().read(query());

    expect(coveredFrom).toBeUndefined();
    expect(
      transactions.map((t) => [t.timestamp, t.semVer, t.changeEvents.map((e) => `${e.operation} ${e.modifier}`)]),
    ).toEqual([
      [100, '0.0.0-computed', ['ADD urn:li:tag:pii']],
      [200, '0.1.0-computed', ['ADD urn:li:tag:gold']],
      [300, '0.2.0-computed', ['REMOVE urn:li:tag:pii']],
    ]);
    expect(transactions.map((t) => t.versionStamp)).toEqual([
      'datasetKey:0;globalTags:1',
      'datasetKey:0;globalTags:2;schemaMetadata:0',
      'datasetKey:0;globalTags:0;schemaMetadata:0',
    ]);
    expect(transactions[0]).toMatchObject({ actor: WRITER, semVerChange: 'MINOR' });
    expect(transactions[0]?.rawDiff).toBeUndefined();
    // globalTags' two earlier versions: nothing else is read beyond the latest values.
    expect(versionReads).toBe(2);
  });

  it('given a window, when read, then versions in it are compared with the one before it, and the first instant in it is 0.0.0', async () => {
    await write('globalTags', tags('a'), 100);
    await write('schemaMetadata', { fields: [] }, 150);
    await write('globalTags', tags('a', 'b'), 200);
    await write('globalTags', tags('b'), 300);

    const { transactions } = await reader().read(query({ startTime: 150, endTime: 250 }));

    expect(transactions.map((t) => [t.timestamp, t.semVer, t.changeEvents.map((e) => e.modifier)])).toEqual([
      [200, '0.1.0-computed', ['urn:li:tag:b']],
    ]);
  });

  it('given raw asked for, when read, then each transaction carries the raw diff of its version', async () => {
    await write('globalTags', tags('a'), 100);
    await write('globalTags', tags('a', 'b'), 200);

    const { transactions } = await reader().read(query({ raw: true }));

    expect(transactions.map((t) => t.rawDiff)).toEqual([
      [{ op: 'add', path: '/tags', value: [{ tag: 'urn:li:tag:a' }] }],
      [{ op: 'add', path: '/tags/1', value: { tag: 'urn:li:tag:b' } }],
    ]);
  });

  it('given an entity never written, when read, then no transaction', async () => {
    expect((await reader().read(query())).transactions).toEqual([]);
    expect(versionReads).toBe(0);
  });

  it('given a malformed URN or an unknown entity type, when read, then a bad request', async () => {
    await expect(reader().read(query({ urn: 'not-a-urn' }))).rejects.toThrow(BadRequestError);
    await expect(reader().read(query({ urn: 'urn:li:nosuchtype:x' }))).rejects.toThrow(BadRequestError);
  });

  it('given many versions before the window, when read, then the walk stops at the first version before it', async () => {
    for (let index = 1; index <= 10; index++) await write('globalTags', tags(`t${index}`), index * 100);
    versionReads = 0;

    const { transactions } = await reader({ maxVersionReads: 100, pageSize: 2 }).read(
      query({ startTime: 750, endTime: 2000 }),
    );

    expect(transactions.map((t) => t.timestamp)).toEqual([800, 900, 1000]);
    // Versions 9 and 8 (in the window), then 7 (before it), read two at a time: 9 and 8, then 7 and 6.
    expect(versionReads).toBe(4);
  });

  it('given more versions in the window than one request reads, when read, then the newest are answered and the cut is said', async () => {
    for (let index = 1; index <= 30; index++) await write('globalTags', tags(`t${index}`), index * 100);
    for (let index = 1; index <= 4; index++)
      await write(
        'ownership',
        { owners: [{ owner: `urn:li:corpuser:u${index}`, type: 'DATAOWNER' }] },
        index * 1000 + 50,
      );
    versionReads = 0;

    const limited = await reader({ maxVersionReads: 12, pageSize: 5 }).read(
      query({ categories: ['TAG', 'OWNERSHIP'], startTime: 0 }),
    );

    expect(versionReads).toBeLessThanOrEqual(12);
    expect(limited.coveredFrom).toBeDefined();
    // What is answered is exactly the timeline of the window starting where the answer says it is complete.
    const full = await reader().read(query({ categories: ['TAG', 'OWNERSHIP'], startTime: limited.coveredFrom ?? 0 }));
    expect(limited.transactions).toEqual(full.transactions);
    expect(limited.transactions.at(-1)?.timestamp).toBe(4050);
  });
});
