import { MongoServerError } from 'mongodb';
import type { ClientSession, Collection, Db } from 'mongodb';

import type { AspectKey } from './aspect-store';
import {
  checkedLogEnds,
  lastWriteTraces,
  writeTraceKey,
  type LogEnd,
  type NewWriteTrace,
  type WriteTrace,
} from './write-traces';

/** One write trace: `_id` is its identity (trace id, urn, aspect), so a later record of it replaces the document. */
export interface WriteTraceDocument {
  readonly _id: string;
  readonly traceId: string;
  readonly urn: string;
  readonly aspect: string;
  readonly proposalId: string;
  readonly status: WriteTrace['status'];
  readonly version: number | null;
  readonly createdOn: number | null;
  readonly errorCode: string | null;
  readonly error: string | null;
  readonly changeLogged: boolean;
  readonly recordedAt: number;
  readonly publishedBefore: readonly LogEnd[] | null;
}

export function toWriteTraceDocument(trace: NewWriteTrace): WriteTraceDocument {
  return {
    _id: writeTraceKey(trace),
    traceId: trace.traceId,
    urn: trace.urn,
    aspect: trace.aspect,
    proposalId: trace.proposalId,
    status: trace.status,
    version: trace.version,
    createdOn: trace.createdOn,
    errorCode: trace.errorCode,
    error: trace.error,
    changeLogged: trace.changeLogged,
    recordedAt: trace.recordedAt,
    publishedBefore: null,
  };
}

export function fromWriteTraceDocument(document: WriteTraceDocument): WriteTrace {
  return {
    traceId: document.traceId,
    urn: document.urn,
    aspect: document.aspect,
    proposalId: document.proposalId,
    status: document.status,
    version: document.version,
    createdOn: document.createdOn,
    errorCode: document.errorCode,
    error: document.error,
    changeLogged: document.changeLogged,
    recordedAt: document.recordedAt,
    publishedBefore: document.publishedBefore === null ? null : document.publishedBefore.map((end) => ({ ...end })),
  };
}

/**
 * The write traces of `MongoAspectStore`, in a collection of their own: {@link record} runs in the commit's
 * transaction (its session), so a trace is written with the effects it describes or not at all.
 */
export class MongoWriteTraces {
  private constructor(private readonly collection: Collection<WriteTraceDocument>) {}

  /** Creates the collection and its index when absent (idempotent, as every instance calls it at start). */
  static async prepare(db: Db, name: string): Promise<MongoWriteTraces> {
    const exists = (await db.listCollections({ name }, { nameOnly: true }).toArray()).length > 0;
    if (!exists) {
      try {
        await db.createCollection(name);
      } catch (error) {
        // Another instance created it since we looked.
        if (!(error instanceof MongoServerError && error.code === NAMESPACE_EXISTS)) throw error;
      }
    }
    const collection = db.collection<WriteTraceDocument>(name);
    // What a publication updates: the traces of the proposals whose change logs it published.
    await collection.createIndexes([{ key: { proposalId: 1 }, name: 'by_proposal' }]);
    return new MongoWriteTraces(collection);
  }

  /** Writes the traces of a commit, in its transaction. */
  async record(traces: readonly NewWriteTrace[], session: ClientSession): Promise<void> {
    const documents = lastWriteTraces(traces).map(toWriteTraceDocument);
    if (documents.length === 0) return;
    await this.collection.bulkWrite(
      documents.map((document) => ({
        replaceOne: { filter: { _id: document._id }, replacement: document, upsert: true },
      })),
      { session, ordered: true },
    );
  }

  async find(traceId: string, keys: readonly AspectKey[]): Promise<WriteTrace[]> {
    const ids = [...new Set(keys.map(({ urn, aspect }) => writeTraceKey({ traceId, urn, aspect })))];
    if (ids.length === 0) return [];
    const documents = await this.collection.find({ _id: { $in: ids } }).toArray();
    return documents.map(fromWriteTraceDocument);
  }

  async recordPublication(proposalIds: readonly string[], ends: readonly LogEnd[]): Promise<void> {
    const ids = [...new Set(proposalIds)];
    if (ids.length === 0) return;
    await this.collection.updateMany(
      { proposalId: { $in: ids }, publishedBefore: null },
      { $set: { publishedBefore: checkedLogEnds(ends) } },
    );
  }
}

const NAMESPACE_EXISTS = 48;
