import { describe, expect, it } from '@jest/globals';

import { fromWriteTraceDocument, toWriteTraceDocument } from './mongo-write-traces';
import type { NewWriteTrace } from './write-traces';

// The document layout of write traces; their behaviour against a real replica set is the AspectStore contract
// (`mongo-aspect-store.int.spec.ts`, run when MONGODB_URI is set).

const trace: NewWriteTrace = {
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD)',
  aspect: 'status',
  proposalId: 'request-1/3',
  status: 'APPLIED',
  version: 2,
  createdOn: 1_700_000_000_123,
  errorCode: null,
  error: null,
  changeLogged: true,
  recordedAt: 1_700_000_000_124,
};

describe('MongoAspectStore write-trace documents', () => {
  it('are identified by (trace id, urn, aspect), so that a later record of the same write replaces the document', () => {
    const document = toWriteTraceDocument(trace);
    expect(document._id).toBe(JSON.stringify([trace.traceId, trace.urn, trace.aspect]));
    expect(toWriteTraceDocument({ ...trace, proposalId: 'request-2', version: 3 })._id).toBe(document._id);
    expect(toWriteTraceDocument({ ...trace, aspect: 'ownership' })._id).not.toBe(document._id);
  });

  it('round-trip every field, a new record unpublished, with the outbox position of its commit', () => {
    expect(fromWriteTraceDocument(toWriteTraceDocument(trace))).toEqual({ ...trace, publishedBefore: null });
    expect(toWriteTraceDocument(trace, 42).outboxPosition).toBe(42);
    const ends = [{ topic: 'MetadataChangeLog_Versioned_v1', partition: 3, end: '9007199254740993' }];
    // Published: by the publication covering its position, or (a document of an earlier Strata) on itself.
    expect(fromWriteTraceDocument(toWriteTraceDocument(trace, 42), ends)).toEqual({ ...trace, publishedBefore: ends });
    expect(fromWriteTraceDocument({ ...toWriteTraceDocument(trace), publishedBefore: ends })).toEqual({
      ...trace,
      publishedBefore: ends,
    });
  });
});
