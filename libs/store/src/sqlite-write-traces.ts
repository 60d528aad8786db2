import type Database from 'better-sqlite3';

import type { AspectKey } from './aspect-store';
import { checkedLogEnds, lastWriteTraces, type LogEnd, type NewWriteTrace, type WriteTrace } from './write-traces';

/** The write-trace table of the SQLite store: one row per (trace id, urn, aspect), found again by proposal id. */
const WRITE_TRACE_SCHEMA = `
  CREATE TABLE IF NOT EXISTS write_trace (
    traceid TEXT NOT NULL,
    urn TEXT NOT NULL,
    aspect TEXT NOT NULL,
    proposalid TEXT NOT NULL,
    status TEXT NOT NULL,
    version INTEGER,
    createdon INTEGER,
    errorcode TEXT,
    error TEXT,
    changelogged INTEGER NOT NULL,
    recordedat INTEGER NOT NULL,
    publishedbefore TEXT,
    PRIMARY KEY (traceid, urn, aspect)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS write_trace_by_proposal ON write_trace (proposalid);
`;

interface WriteTraceRow {
  readonly traceid: string;
  readonly urn: string;
  readonly aspect: string;
  readonly proposalid: string;
  readonly status: string;
  readonly version: number | null;
  readonly createdon: number | null;
  readonly errorcode: string | null;
  readonly error: string | null;
  readonly changelogged: number;
  readonly recordedat: number;
  readonly publishedbefore: string | null;
}

/**
 * The write traces of `SqliteAspectStore`, in its file: {@link record} runs inside the store's commit transaction,
 * so a trace is written with the effects it describes or not at all.
 */
export class SqliteWriteTraces {
  private readonly statements;
  private readonly publicationTransaction;

  constructor(db: Database.Database) {
    db.exec(WRITE_TRACE_SCHEMA);
    this.statements = {
      upsert: db.prepare<
        [
          string,
          string,
          string,
          string,
          string,
          number | null,
          number | null,
          string | null,
          string | null,
          number,
          number,
        ]
      >(
        `INSERT INTO write_trace
           (traceid, urn, aspect, proposalid, status, version, createdon, errorcode, error, changelogged, recordedat,
            publishedbefore)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)
         ON CONFLICT (traceid, urn, aspect) DO UPDATE SET
           proposalid = excluded.proposalid, status = excluded.status, version = excluded.version,
           createdon = excluded.createdon, errorcode = excluded.errorcode, error = excluded.error,
           changelogged = excluded.changelogged, recordedat = excluded.recordedat, publishedbefore = NULL`,
      ),
      select: db.prepare<[string, string, string], WriteTraceRow>(
        'SELECT * FROM write_trace WHERE traceid = ? AND urn = ? AND aspect = ?',
      ),
      publish: db.prepare<[string, string]>(
        'UPDATE write_trace SET publishedbefore = ? WHERE proposalid = ? AND publishedbefore IS NULL',
      ),
    };
    this.publicationTransaction = db.transaction((proposalIds: readonly string[], ends: string): void => {
      for (const id of proposalIds) this.statements.publish.run(ends, id);
    });
  }

  /** Writes the traces of a commit; call inside the commit's transaction. */
  record(traces: readonly NewWriteTrace[]): void {
    for (const trace of lastWriteTraces(traces)) {
      this.statements.upsert.run(
        trace.traceId,
        trace.urn,
        trace.aspect,
        trace.proposalId,
        trace.status,
        trace.version,
        trace.createdOn,
        trace.errorCode,
        trace.error,
        trace.changeLogged ? 1 : 0,
        trace.recordedAt,
      );
    }
  }

  find(traceId: string, keys: readonly AspectKey[]): WriteTrace[] {
    const found = new Map<string, WriteTrace>();
    for (const { urn, aspect } of keys) {
      const row = this.statements.select.get(traceId, urn, aspect);
      if (row !== undefined) found.set(JSON.stringify([urn, aspect]), toWriteTrace(row));
    }
    return [...found.values()];
  }

  recordPublication(proposalIds: readonly string[], ends: readonly LogEnd[]): void {
    if (proposalIds.length === 0) return;
    this.publicationTransaction.immediate([...new Set(proposalIds)], JSON.stringify(checkedLogEnds(ends)));
  }
}

function toWriteTrace(row: WriteTraceRow): WriteTrace {
  return {
    traceId: row.traceid,
    urn: row.urn,
    aspect: row.aspect,
    proposalId: row.proposalid,
    status: row.status as WriteTrace['status'],
    version: row.version,
    createdOn: row.createdon,
    errorCode: row.errorcode,
    error: row.error,
    changeLogged: row.changelogged === 1,
    recordedAt: row.recordedat,
    publishedBefore: row.publishedbefore === null ? null : (JSON.parse(row.publishedbefore) as LogEnd[]),
  };
}
