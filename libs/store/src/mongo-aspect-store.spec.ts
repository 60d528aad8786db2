import { describe, expect, it } from '@jest/globals';
import { ConflictError } from '@strata/model';
import { Binary, MongoServerError } from 'mongodb';

import type { StoredTimeseriesValue } from './aspect-store';
import {
  assertSupportsTransactions,
  duplicateAsConflict,
  fromAspectDocument,
  fromOutboxDocument,
  fromTimeseriesDocument,
  isDuplicateKeyError,
  mongoCollectionNames,
  parseOutboxIds,
  toArchivedDocument,
  toLatestDocument,
  toOutboxDocument,
  toTimeseriesDocument,
} from './mongo-aspect-store';

// What needs no server: the document layout, the error mapping and the deployment check. The behaviour against a
// real replica set is `mongo-aspect-store.int.spec.ts` (the AspectStore contract), run when MONGODB_URI is set.

const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD)';

function duplicateKeyError(): MongoServerError {
  return new MongoServerError({
    code: 11000,
    codeName: 'DuplicateKey',
    errmsg: 'E11000 duplicate key error collection: strata.metadata_aspect_v2 index: urn_aspect_version dup key',
  });
}

describe('MongoAspectStore document layout', () => {
  it("keeps the latest under version 0 with its ordinal, and archives it under that ordinal, as DataHub's table", () => {
    const latest = toLatestDocument(urn, 'status', {
      version: 3,
      value: { removed: true },
      systemMetadata: { runId: 'r' },
      createdOn: 1_700_000_000_123,
      createdBy: 'urn:li:corpuser:w',
    });
    expect(latest).toEqual({
      urn,
      aspect: 'status',
      version: 0,
      ordinal: 3,
      metadata: '{"removed":true}',
      systemMetadata: '{"runId":"r"}',
      // The run id again, as a field a query can find (a rollback's).
      runId: 'r',
      createdOn: 1_700_000_000_123,
      createdBy: 'urn:li:corpuser:w',
    });
    expect(toArchivedDocument(latest)).toEqual({ ...latest, version: 3 });
    // A read reports the ordinal, whether it found the latest or the archived copy.
    expect(fromAspectDocument(latest)).toEqual(fromAspectDocument(toArchivedDocument(latest)));
    expect(fromAspectDocument(latest).version).toBe(3);
  });

  it('drops the _id of the latest when archiving, so that the archive is a new document', () => {
    const latest = { _id: 'latest-id', ...toLatestDocument(urn, 'status', row(1, {})) };
    expect(toArchivedDocument(latest)).not.toHaveProperty('_id');
  });

  it('round-trips values whose keys MongoDB restricts in field names (dots, dollars), exactly as written', () => {
    const value = {
      customProperties: { 'spark.app.name': 'etl', $ref: 'not a DBRef', 'a.b': { $gt: 1 } },
      nested: { list: [1, 2.5, -3], nothing: null, text: 'Ünïcødé ✓ "quoted"' },
      empty: {},
    };
    const systemMetadata = { lastObserved: 1_700_000_000_000, properties: { 'x.y': 'z' } };
    const stored = fromAspectDocument(toLatestDocument(urn, 'datasetProperties', row(1, value, systemMetadata)));
    expect(stored.value).toEqual(value);
    expect(stored.systemMetadata).toEqual(systemMetadata);
    expect(Object.getPrototypeOf(stored.value)).toBe(Object.prototype);
  });

  it('round-trips timeseries values', () => {
    const value: StoredTimeseriesValue = {
      urn,
      aspect: 'datasetProfile',
      id: 'point-1',
      timestampMillis: 1_700_000_000_000,
      value: { timestampMillis: 1_700_000_000_000, rowCount: 9, 'field.path': 'x' },
      systemMetadata: { runId: 'r' },
      createdOn: 1_700_000_000_001,
      createdBy: 'urn:li:corpuser:w',
    };
    const document = toTimeseriesDocument(value);
    expect(document.metadata).toBe(JSON.stringify(value.value));
    expect(fromTimeseriesDocument(document)).toEqual(value);
  });

  it('returns an outbox value as a Buffer, whether the driver hands back a BSON Binary or raw bytes', () => {
    const record = {
      topic: 't',
      key: urn,
      value: Buffer.from([0, 1, 2, 255]),
      headers: { requestId: 'r', 'x.y': 'z' },
    };
    const written = toOutboxDocument(42, record);
    expect(written._id).toBe(42);
    expect(written.headers).toBe('{"requestId":"r","x.y":"z"}');

    const asRead = { ...written, value: new Binary(Buffer.from([0, 1, 2, 255])) };
    for (const document of [written, asRead]) {
      const pending = fromOutboxDocument(document);
      expect(pending).toEqual({ id: '42', ...record });
      expect(Buffer.isBuffer(pending.value)).toBe(true);
    }
  });

  it('accepts only decimal outbox ids, each once, and ignores ids this store cannot have handed out', () => {
    expect(
      parseOutboxIds(['1', '20', '20', '999999999999999', '0x10', '-1', '1.5', 'abc', '', '1234567890123456']),
    ).toEqual([1, 20, 999999999999999]);
  });

  it('names the collections after DataHub and the SQLite adapter, behind an optional prefix', () => {
    expect(mongoCollectionNames()).toEqual({
      aspects: 'metadata_aspect_v2',
      timeseries: 'timeseries_aspect',
      outbox: 'outbox',
      outboxSequence: 'outbox_sequence',
      appliedProposals: 'applied_proposal',
      marks: 'mark',
      writeTraces: 'write_trace',
      writeTracePublications: 'write_trace_publication',
    });
    expect(mongoCollectionNames('tenant1_').aspects).toBe('tenant1_metadata_aspect_v2');
  });
});

describe('MongoAspectStore error mapping', () => {
  it('recognises the duplicate key error (E11000) and nothing else', () => {
    expect(isDuplicateKeyError(duplicateKeyError())).toBe(true);
    expect(
      isDuplicateKeyError(new MongoServerError({ code: 112, codeName: 'WriteConflict', errmsg: 'conflict' })),
    ).toBe(false);
    expect(isDuplicateKeyError(Object.assign(new Error('E11000 look-alike'), { code: 11000 }))).toBe(false);
    expect(isDuplicateKeyError(new ConflictError('x'))).toBe(false);
    expect(isDuplicateKeyError(undefined)).toBe(false);
  });

  it('turns a duplicate key from a commit write into ConflictError, keeping the driver error as its cause', async () => {
    const cause = duplicateKeyError();
    const failing = duplicateAsConflict(
      () => Promise.reject(cause),
      'version 2 of status of x was written concurrently',
    );
    await expect(failing).rejects.toBeInstanceOf(ConflictError);
    await expect(failing).rejects.toMatchObject({
      message: expect.stringContaining('version 2 of status of x') as unknown,
      cause,
    });
  });

  it('lets every other error through unchanged, and the result of a successful write', async () => {
    const writeConflict = new MongoServerError({
      code: 112,
      codeName: 'WriteConflict',
      errmsg: 'Write conflict during plan execution',
      errorLabels: ['TransientTransactionError'],
    });
    // A write conflict must stay a MongoError with its label: withTransaction retries it by re-running the commit.
    await expect(duplicateAsConflict(() => Promise.reject(writeConflict), 'x')).rejects.toBe(writeConflict);
    await expect(duplicateAsConflict(() => Promise.resolve(7), 'x')).resolves.toBe(7);
  });
});

describe('MongoAspectStore deployment check', () => {
  it('accepts a replica set member and a mongos', () => {
    expect(() => {
      assertSupportsTransactions({ isWritablePrimary: true, setName: 'rs0', hosts: ['127.0.0.1:27017'] });
    }).not.toThrow();
    expect(() => {
      assertSupportsTransactions({ isWritablePrimary: true, msg: 'isdbgrid' });
    }).not.toThrow();
  });

  it('refuses a standalone server, naming the requirement and how to meet it', () => {
    const check = () => {
      assertSupportsTransactions({ isWritablePrimary: true, maxWireVersion: 21, ok: 1 });
    };
    expect(check).toThrow(/multi-document transactions/);
    expect(check).toThrow(/replica set/);
    expect(check).toThrow(/--replSet rs0/);
    expect(check).toThrow(/rs\.initiate\(\)/);
    expect(check).toThrow(/standalone/);
  });

  it('tells a replica set that was never initiated apart from a standalone', () => {
    expect(() => {
      assertSupportsTransactions({ isWritablePrimary: false, secondary: false, isreplicaset: true, ok: 1 });
    }).toThrow(/not initiated/);
  });
});

function row(version: number, value: Record<string, unknown>, systemMetadata: Record<string, unknown> = {}) {
  return { version, value, systemMetadata, createdOn: 1000 + version, createdBy: 'urn:li:corpuser:w' };
}
