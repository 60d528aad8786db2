import { describe, expect, it } from '@jest/globals';
import type { Document, MongoClient } from 'mongodb';

import {
  MongoAspectStore,
  registryTextFilter,
  toArchivedDocument,
  toLatestDocument,
  writtenUnderRegistry,
  type AspectDocument,
} from './mongo-aspect-store';

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
    const fake = new FakeServer();
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

/**
 * Just enough of a MongoDB server, in memory, for `MongoAspectStore.connect` and the registry scan: collections that
 * record their indexes and the finds they serve, and evaluate the few query operators the scan uses (equality,
 * `$and`, `$regex`, `$exists`). Every other call is accepted and does nothing.
 */
class FakeServer {
  private readonly collections = new Map<string, FakeCollection>();

  collection(name: string): FakeCollection {
    let collection = this.collections.get(name);
    if (collection === undefined) {
      collection = new FakeCollection();
      this.collections.set(name, collection);
    }
    return collection;
  }

  client(): MongoClient {
    const db = accepting({
      listCollections: () => ({ toArray: () => Promise.resolve([]) }),
      createCollection: () => Promise.resolve(),
      collection: (name: string) => this.collection(name).facade(),
    });
    const admin = { command: () => Promise.resolve({ setName: 'rs0', ok: 1 }) };
    return accepting({ db: (name: string) => (name === 'admin' ? admin : db) }) as MongoClient;
  }
}

class FakeCollection {
  readonly documents: AspectDocument[] = [];
  readonly indexes: Document[] = [];
  /** The finds served, each with the sort and hint it was given. */
  readonly finds: { filter: Document; sort?: Document; hint?: string }[] = [];
  /** Cursors served and not closed. */
  openCursors = 0;

  facade(): unknown {
    return accepting({
      createIndexes: (specs: Document[]) => {
        this.indexes.push(...specs);
        return Promise.resolve(specs.map((spec) => String(spec['name'])));
      },
      listIndexes: () => ({ toArray: () => Promise.resolve([...this.indexes]) }),
      updateOne: () => Promise.resolve({ acknowledged: true }),
      find: (filter: Document) => this.find(filter),
    });
  }

  private find(filter: Document) {
    const request: { filter: Document; sort?: Document; hint?: string } = { filter };
    const closed = () => {
      this.openCursors -= 1;
    };
    const matching = () => {
      const rows = this.documents.filter((each) => matches(each as unknown as Document, filter));
      const sort = request.sort ?? {};
      return rows.sort((x, y) => {
        for (const field of Object.keys(sort)) {
          const [left, right] = [String(x[field as keyof AspectDocument]), String(y[field as keyof AspectDocument])];
          if (left !== right) return left < right ? -1 : 1;
        }
        return 0;
      });
    };
    const cursor = {
      sort(sort: Document) {
        request.sort = sort;
        return cursor;
      },
      hint(hint: string) {
        request.hint = hint;
        return cursor;
      },
      toArray: () => Promise.resolve(matching()),
      close() {
        closed();
        return Promise.resolve();
      },
      async *[Symbol.asyncIterator]() {
        await Promise.resolve();
        yield* matching();
      },
    };
    this.finds.push(request);
    this.openCursors += 1;
    return cursor;
  }
}

/** An object answering the named methods, and any other method with a call that resolves to nothing. */
function accepting(methods: Record<string, (...args: never[]) => unknown>): unknown {
  return new Proxy(methods, {
    get: (target, property) =>
      typeof property === 'string' && property in target ? target[property] : () => Promise.resolve(undefined),
  });
}

/** MongoDB's matching of a document by a filter, for the operators the scan uses. */
function matches(document: Document, filter: Document): boolean {
  return Object.entries(filter).every(([field, condition]) => {
    if (field === '$and') return (condition as Document[]).every((each) => matches(document, each));
    const value: unknown = document[field];
    if (typeof condition === 'object' && condition !== null && '$regex' in condition) {
      return typeof value === 'string' && new RegExp((condition as { $regex: string }).$regex).test(value);
    }
    if (typeof condition === 'object' && condition !== null && '$exists' in condition) {
      return (value !== undefined) === (condition as { $exists: boolean }).$exists;
    }
    return value === condition;
  });
}
