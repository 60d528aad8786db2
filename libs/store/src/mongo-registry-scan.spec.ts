import { describe, expect, it } from '@jest/globals';

import {
  MongoAspectStore,
  registryTextFilter,
  toArchivedDocument,
  toLatestDocument,
  writtenUnderRegistry,
} from './mongo-aspect-store';
import { FakeMongoServer } from './mongo-fake-server';

// What `MongoAspectStore.findLatestByRegistry` asks of the server, checked on the text it would run against: the
// documents `toLatestDocument` writes. Its behaviour against a real replica set is the AspectStore contract
// (`mongo-aspect-store.int.spec.ts`, run when MONGODB_URI is set).

const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD)';

/** Whether the server would pass on a document written with this system metadata: every `$regex` of the filter holds. */
function passes(filter: ReturnType<typeof registryTextFilter>, systemMetadata: Record<string, unknown>): boolean {
  const text = toLatestDocument(urn, 'status', {
    version: 1,
    value: { removed: false },
    systemMetadata,
    createdOn: 1,
    createdBy: 'urn:li:corpuser:w',
  }).systemMetadata;
  const clauses = (filter as { $and: { systemMetadata: { $regex: string } }[] }).$and;
  return clauses.every((clause) => new RegExp(clause.systemMetadata.$regex).test(text));
}

describe('MongoAspectStore registry scan', () => {
  it.each([
    ['mycompany-dq-model', '0.0.1'],
    ['a.b*c+(d)|[e]^$', '1.0.0-SNAPSHOT+build.5'],
    ['quote " and backslash \\ and ✓', '2'],
  ])('passes on the documents written under registry %j at %j, in any key order', (name, version) => {
    const filter = registryTextFilter(name, version);
    expect(passes(filter, { runId: 'r', registryName: name, registryVersion: version })).toBe(true);
    expect(passes(filter, { registryVersion: version, lastObserved: 1, registryName: name })).toBe(true);
    expect(writtenUnderRegistry({ registryName: name, registryVersion: version }, name, version)).toBe(true);
  });

  it('holds back documents of another registry or version, or of none', () => {
    const filter = registryTextFilter('model', '1.0');
    expect(passes(filter, { registryName: 'model', registryVersion: '1.01' })).toBe(false);
    expect(passes(filter, { registryName: 'model2', registryVersion: '1.0' })).toBe(false);
    expect(passes(filter, { registryName: 'model' })).toBe(false);
    expect(passes(filter, { runId: 'model:1.0' })).toBe(false);
  });

  it('refuses, once parsed, what only the text matched: values nested elsewhere, or not strings', () => {
    const nested = { properties: { registryName: 'model', registryVersion: '1.0' } };
    expect(passes(registryTextFilter('model', '1.0'), nested)).toBe(true);
    expect(writtenUnderRegistry(nested, 'model', '1.0')).toBe(false);
    expect(writtenUnderRegistry({ registryName: 'model', registryVersion: 1 }, 'model', '1')).toBe(false);
  });
});

describe('MongoAspectStore.findLatestByRegistry, against a recording fake of the server', () => {
  const under = (registryName: string, registryVersion: string) => ({ runId: 'r', registryName, registryVersion });
  const document = (urnOf: string, aspect: string, systemMetadata: Record<string, unknown>) =>
    toLatestDocument(urnOf, aspect, { version: 2, value: { aspect }, systemMetadata, createdOn: 5, createdBy: 'w' });
  const a = 'urn:li:corpuser:a';
  const b = 'urn:li:corpuser:b';

  it('walks the latest values in (urn, aspect) order on the unique index, filtered by the server, then checked', async () => {
    const fake = new FakeMongoServer();
    const latest = document(b, 'status', under('model', '1.0.0'));
    fake.collection('metadata_aspect_v2').documents.push(
      latest,
      // Its earlier version, under the registry too: never a latest value.
      toArchivedDocument({ ...latest, ordinal: 1 }),
      document(a, 'status', under('model', '1.0.0')),
      document(a, 'ownership', under('model', '2.0.0')),
      document(a, 'domains', { properties: under('model', '1.0.0') }),
      document(b, 'ownership', under('model', '1.0.0')),
    );
    const store = await MongoAspectStore.connect({ uri: 'unused', database: 'strata', client: fake.client() });

    const found = await store.findLatestByRegistry('model', '1.0.0', 10);
    expect(found.map((row) => [row.urn, row.aspect, row.version])).toEqual([
      [a, 'status', 2],
      [b, 'ownership', 2],
      [b, 'status', 2],
    ]);
    const [request] = fake.collection('metadata_aspect_v2').finds;
    expect(request).toEqual({
      filter: { version: 0, ...registryTextFilter('model', '1.0.0') },
      sort: { urn: 1, aspect: 1 },
      hint: 'urn_aspect_version',
    });
    // The hint names an index the store creates, ordered for the walk.
    expect(fake.collection('metadata_aspect_v2').indexes).toContainEqual(
      expect.objectContaining({ name: 'urn_aspect_version', key: { urn: 1, aspect: 1, version: 1 } }),
    );
    // The walk stops at the limit and closes its cursor.
    expect((await store.findLatestByRegistry('model', '1.0.0', 2)).map((row) => row.aspect)).toEqual([
      'status',
      'ownership',
    ]);
    expect(fake.collection('metadata_aspect_v2').openCursors).toBe(0);
    expect(await store.findLatestByRegistry('model', '1.0.0', 0)).toEqual([]);
    await store.close();
  });
});
