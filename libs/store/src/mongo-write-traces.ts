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

/**
 * One write trace: `_id` is its identity (trace id, urn, aspect), so a later record of it replaces the document.
 * `outboxPosition` is the last outbox id of the commit that recorded it; `publishedBefore` is only ever set on
 * documents an earlier Strata wrote, which recorded each publication on the traces themselves.
 */
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
  readonly outboxPosition?: number | null;
}

/** A publication the relay recorded: every outbox record up to `_id` was on the log before it ended at `ends`. */
export interface WriteTracePublicationDocument {
  readonly _id: number;
  readonly ends: readonly LogEnd[];
}

export function toWriteTraceDocument(trace: NewWriteTrace, outboxPosition: number | null = null): WriteTraceDocument {
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
    outboxPosition,
  };
}

/** The trace a document holds, published before `publication` unless the document itself says when (older ones). */
export function fromWriteTraceDocument(
  document: WriteTraceDocument,
  publication: readonly LogEnd[] | null = null,
): WriteTrace {
  const publishedBefore = document.publishedBefore ?? publication;
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
    publishedBefore: publishedBefore === null ? null : publishedBefore.map((end) => ({ ...end })),
  };
}

/**
 * The write traces of `MongoAspectStore`, in a collection of their own: {@link record} runs in the commit's
 * transaction (its session), so a trace is written with the effects it describes or not at all.
 */
export class MongoWriteTraces {
  private constructor(
    private readonly collection: Collection<WriteTraceDocument>,
    private readonly publications: Collection<WriteTracePublicationDocument>,
  ) {}

  /** Creates the collections when absent (idempotent, as every instance calls it at start). */
  static async prepare(db: Db, name: string, publicationsName: string): Promise<MongoWriteTraces> {
    await createCollectionIfAbsent(db, name);
    await createCollectionIfAbsent(db, publicationsName);
    return new MongoWriteTraces(
      db.collection<WriteTraceDocument>(name),
      db.collection<WriteTracePublicationDocument>(publicationsName),
    );
  }

  /**
   * Writes the traces of a commit, in its transaction, with the id of the last outbox record it appended (null when
   * it appended none: nothing of it is ever published).
   */
  async record(traces: readonly NewWriteTrace[], outboxPosition: number | null, session: ClientSession): Promise<void> {
    const documents = lastWriteTraces(traces).map((trace) => toWriteTraceDocument(trace, outboxPosition));
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
    const publications = new Map<number, readonly LogEnd[] | null>();
    // Only a trace whose change log the commit appended has a publication to report.
    const positionOf = (document: WriteTraceDocument) =>
      document.changeLogged && typeof document.outboxPosition === 'number' ? document.outboxPosition : undefined;
    for (const document of documents) {
      const outboxPosition = positionOf(document);
      if (outboxPosition === undefined || publications.has(outboxPosition)) continue;
      // The first publication reaching the position (`_id` is the primary index: one seek).
      const covering = await this.publications.findOne({ _id: { $gte: outboxPosition } }, { sort: { _id: 1 } });
      publications.set(outboxPosition, covering?.ends ?? null);
    }
    return documents.map((document) => {
      const outboxPosition = positionOf(document);
      return fromWriteTraceDocument(
        document,
        outboxPosition === undefined ? null : (publications.get(outboxPosition) ?? null),
      );
    });
  }

  /** Records that every outbox record up to `through` was on the log before it ended at `ends`; the first one stays. */
  async recordPublication(through: number, ends: readonly LogEnd[]): Promise<void> {
    try {
      await this.publications.insertOne({ _id: through, ends: checkedLogEnds(ends) });
    } catch (error) {
      if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
    }
  }
}

async function createCollectionIfAbsent(db: Db, name: string): Promise<void> {
  const exists = (await db.listCollections({ name }, { nameOnly: true }).toArray()).length > 0;
  if (exists) return;
  try {
    await db.createCollection(name);
  } catch (error) {
    // Another instance created it since we looked.
    if (!(error instanceof MongoServerError && error.code === NAMESPACE_EXISTS)) throw error;
  }
}

const DUPLICATE_KEY = 11000;
const NAMESPACE_EXISTS = 48;
