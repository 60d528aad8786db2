import type { Document, MongoClient } from 'mongodb';

/**
 * Just enough of a MongoDB server, in memory, for `MongoAspectStore.connect` and the walks its offline specs check:
 * collections that record the indexes created on them, the finds they serve (filter, projection, sort, hint), how many
 * documents each find handed out, and the bulk updates asked of them; they evaluate equality, `$and`, `$or`, `$regex`
 * and `$exists`. Every other call is accepted and does nothing. For specs only: the store's behaviour against a real
 * replica set is the AspectStore contract (`mongo-aspect-store.int.spec.ts`, run when MONGODB_URI is set).
 */
export class FakeMongoServer {
  private readonly collections = new Map<string, FakeMongoCollection>();

  collection(name: string): FakeMongoCollection {
    let collection = this.collections.get(name);
    if (collection === undefined) {
      collection = new FakeMongoCollection();
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

/** A find as the store asked it. */
export interface FakeFindRequest {
  filter: Document;
  projection?: Document;
  sort?: Document;
  hint?: string;
}

export class FakeMongoCollection {
  /** The documents it holds; each is served with its position as `_id`. */
  readonly documents: Document[] = [];
  readonly indexes: Document[] = [];
  readonly finds: FakeFindRequest[] = [];
  /** The updates of the bulk writes asked of it. */
  readonly updates: { filter: Document; update: Document }[] = [];
  /** How many documents each find handed out before it was closed or ran out. */
  readonly served: number[] = [];
  /** Cursors served and not yet closed or run out. */
  openCursors = 0;

  facade(): unknown {
    return accepting({
      createIndexes: (specs: Document[]) => {
        this.indexes.push(...specs);
        return Promise.resolve(specs.map((spec) => String(spec['name'])));
      },
      listIndexes: () => ({ toArray: () => Promise.resolve([...this.indexes]) }),
      updateOne: () => Promise.resolve({ acknowledged: true }),
      bulkWrite: (operations: { updateOne: { filter: Document; update: Document } }[]) => {
        this.updates.push(...operations.map((operation) => operation.updateOne));
        return Promise.resolve({ ok: 1 });
      },
      find: (filter: Document, options?: { projection?: Document }) => this.find(filter, options?.projection),
    });
  }

  private find(filter: Document, projection: Document | undefined) {
    const request: FakeFindRequest = { filter, ...(projection === undefined ? {} : { projection }) };
    const position = this.served.length;
    this.served.push(0);
    const matching = () => {
      const rows = this.documents
        .map((document, index): Document => ({ _id: index, ...document }))
        .filter((document) => matches(document, filter));
      const sort = request.sort ?? {};
      return rows.sort((x, y) => {
        for (const field of Object.keys(sort)) {
          const [left, right] = [String(x[field]), String(y[field])];
          if (left !== right) return left < right ? -1 : 1;
        }
        return 0;
      });
    };
    const served = this.served;
    let open = true;
    // A cursor closes when it is closed or runs out, as the driver's do.
    const release = () => {
      if (open) this.openCursors -= 1;
      open = false;
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
      toArray: () => {
        release();
        return Promise.resolve(matching());
      },
      close: () => {
        release();
        return Promise.resolve();
      },
      async *[Symbol.asyncIterator]() {
        await Promise.resolve();
        for (const document of matching()) {
          served[position] = (served[position] ?? 0) + 1;
          yield document;
        }
        release();
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

/** MongoDB's matching of a document by a filter, for the operators the store's walks use. */
function matches(document: Document, filter: Document): boolean {
  return Object.entries(filter).every(([field, condition]) => {
    if (field === '$and') return (condition as Document[]).every((each) => matches(document, each));
    if (field === '$or') return (condition as Document[]).some((each) => matches(document, each));
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
