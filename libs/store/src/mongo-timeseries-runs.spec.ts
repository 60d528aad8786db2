import { describe, expect, it } from '@jest/globals';
import type { Document } from 'mongodb';

import type { StoredTimeseriesValue } from './aspect-store';
import { fromTimeseriesDocument, MongoAspectStore, toTimeseriesDocument } from './mongo-aspect-store';
import { FakeMongoServer } from './mongo-fake-server';

// What `MongoAspectStore` asks of the server to find, count and delete the timeseries values of an ingestion run,
// checked against a recording fake of the server. Its behaviour against a real replica set is the AspectStore contract
// (`mongo-aspect-store.int.spec.ts`, run when MONGODB_URI is set).

const a = 'urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)';
const b = 'urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD)';

function value(
  urn: string,
  aspect: string,
  at: number,
  systemMetadata: Record<string, unknown>,
): StoredTimeseriesValue {
  return {
    urn,
    aspect,
    id: `${aspect}-${at}`,
    timestampMillis: at,
    value: { timestampMillis: at },
    systemMetadata,
    createdOn: at,
    createdBy: 'urn:li:corpuser:w',
  };
}

describe('MongoAspectStore: the run of a timeseries value', () => {
  it('keeps the system metadata’s run id as a field of the document (null when it names none)', () => {
    const written = value(a, 'datasetProfile', 1, { runId: 'run-x', lastObserved: 1 });
    expect(toTimeseriesDocument(written).runId).toBe('run-x');
    expect(fromTimeseriesDocument(toTimeseriesDocument(written))).toEqual(written);
    expect(toTimeseriesDocument(value(a, 'datasetProfile', 1, {})).runId).toBeNull();
    expect(toTimeseriesDocument(value(a, 'datasetProfile', 1, { properties: { runId: 'run-x' } })).runId).toBeNull();
    expect(toTimeseriesDocument(value(a, 'datasetProfile', 1, { runId: 7 })).runId).toBeNull();
  });

  it('lists the (urn, aspect) pairs of a run by a covered walk of its index, stopping past the limit', async () => {
    const fake = new FakeMongoServer();
    const timeseries = fake.collection('timeseries_aspect');
    timeseries.documents.push(
      ...[
        value(b, 'operation', 1, { runId: 'run-x' }),
        value(a, 'operation', 1, { runId: 'run-x' }),
        value(a, 'operation', 2, { runId: 'run-x' }),
        value(a, 'datasetProfile', 1, { runId: 'run-x' }),
        value(a, 'datasetProfile', 2, { runId: 'run-y' }),
      ].map(toTimeseriesDocument),
    );
    const store = await MongoAspectStore.connect({ uri: 'unused', database: 'strata', client: fake.client() });

    expect(await store.findTimeseriesByRunId('run-x', 10)).toEqual([
      { urn: a, aspect: 'datasetProfile', count: 1 },
      { urn: a, aspect: 'operation', count: 2 },
      { urn: b, aspect: 'operation', count: 1 },
    ]);
    expect(timeseries.finds.at(-1)).toEqual({
      filter: { runId: 'run-x' },
      projection: { _id: 0, urn: 1, aspect: 1 },
      sort: { runId: 1, urn: 1, aspect: 1 },
      hint: 'timeseries_by_run',
    });
    // The hint names an index the store creates, whose keys cover the walk.
    expect(timeseries.indexes).toContainEqual({ key: { runId: 1, urn: 1, aspect: 1 }, name: 'timeseries_by_run' });
    expect(await store.findTimeseriesByRunId('run-x', 2)).toEqual([
      { urn: a, aspect: 'datasetProfile', count: 1 },
      { urn: a, aspect: 'operation', count: 2 },
    ]);
    // It stopped at the first entry of the third pair, and closed its cursor.
    expect(timeseries.served.at(-1)).toBe(4);
    expect(timeseries.openCursors).toBe(0);
    expect(await store.findTimeseriesByRunId('run-x', 0)).toEqual([]);
    await store.close();
  });

  it('gives the documents written before the run was kept apart their run, once, when it connects', async () => {
    const fake = new FakeMongoServer();
    const timeseries = fake.collection('timeseries_aspect');
    const legacy = (document: Document) => {
      const { runId: _runId, ...earlier } = document;
      return earlier;
    };
    timeseries.documents.push(
      legacy(toTimeseriesDocument(value(a, 'operation', 1, { runId: 'run-x' }))),
      legacy(toTimeseriesDocument(value(a, 'operation', 2, {}))),
      toTimeseriesDocument(value(a, 'operation', 3, { runId: 'run-y' })),
    );
    const store = await MongoAspectStore.connect({ uri: 'unused', database: 'strata', client: fake.client() });
    expect(timeseries.finds[0]?.filter).toEqual({
      $or: [{ pointId: { $exists: false } }, { runId: { $exists: false } }],
    });
    expect(timeseries.updates).toEqual([
      { filter: { _id: 0 }, update: { $set: { pointId: 'operation-1', runId: 'run-x' } } },
      { filter: { _id: 1 }, update: { $set: { pointId: 'operation-2', runId: null } } },
    ]);
    await store.close();
  });
});
