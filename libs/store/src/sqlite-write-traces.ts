import type Database from 'better-sqlite3';

import type { AspectKey } from './aspect-store';
import { checkedLogEnds, lastWriteTraces, type LogEnd, type NewWriteTrace, type WriteTrace } from './write-traces';

/**
 * The write-trace table of the SQLite store: one row per (trace id, urn, aspect), with the outbox position of the
 * commit that recorded it; and the publications the relay recorded, by the last outbox id each covers.
 */
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
    outboxposition INTEGER,
    PRIMARY KEY (traceid, urn, aspect)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS write_trace_publication (
    through INTEGER PRIMARY KEY,
    ends TEXT NOT NULL
  );
`;

/**
 * Brings a file written by an earlier Strata to this layout: its traces had their publication written onto each row
 * (`publishedbefore`, still read for those rows) and were found by proposal id for it, an index no longer needed.
 */
function migrateWriteTraces(db: Database.Database): void {
  const columns = db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('write_trace')").all();
  if (!columns.some(({ name }) => name === 'outboxposition')) {
    db.exec('ALTER TABLE write_trace ADD COLUMN outboxposition INTEGER');
  }
  db.exec('DROP INDEX IF EXISTS write_trace_by_proposal');
}

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
  readonly outboxposition: number | null;
}

/**
 * The write traces of `SqliteAspectStore`, in its file: {@link record} runs inside the store's commit transaction,
 * so a trace is written with the effects it describes or not at all.
 */
export class SqliteWriteTraces {
  private readonly statements;

  constructor(db: Database.Database) {
    db.exec(WRITE_TRACE_SCHEMA);
    migrateWriteTraces(db);
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
          number | null,
        ]
      >(
        `INSERT INTO write_trace
           (traceid, urn, aspect, proposalid, status, version, createdon, errorcode, error, changelogged, recordedat,
            publishedbefore, outboxposition)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)
         ON CONFLICT (traceid, urn, aspect) DO UPDATE SET
           proposalid = excluded.proposalid, status = excluded.status, version = excluded.version,
           createdon = excluded.createdon, errorcode = excluded.errorcode, error = excluded.error,
           changelogged = excluded.changelogged, recordedat = excluded.recordedat, publishedbefore = NULL,
           outboxposition = excluded.outboxposition`,
      ),
      select: db.prepare<[string, string, string], WriteTraceRow>(
        'SELECT * FROM write_trace WHERE traceid = ? AND urn = ? AND aspect = ?',
      ),
      // The first publication is kept: a relay publishing again after a crash measures a later, looser bound.
      publish: db.prepare<[number, string]>(
        'INSERT OR IGNORE INTO write_trace_publication (through, ends) VALUES (?, ?)',
      ),
      covering: db.prepare<[number], { ends: string }>(
        'SELECT ends FROM write_trace_publication WHERE through >= ? ORDER BY through LIMIT 1',
      ),
    };
  }

  /**
   * Writes the traces of a commit; call inside the commit's transaction, with the id of the last outbox record it
   * appended (null when it appended none: nothing of it is ever published).
   */
  record(traces: readonly NewWriteTrace[], outboxPosition: number | null): void {
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
        outboxPosition,
      );
    }
  }

  find(traceId: string, keys: readonly AspectKey[]): WriteTrace[] {
    const found = new Map<string, WriteTrace>();
    for (const { urn, aspect } of keys) {
      const row = this.statements.select.get(traceId, urn, aspect);
      if (row !== undefined) found.set(JSON.stringify([urn, aspect]), toWriteTrace(row, this.publicationOf(row)));
    }
    return [...found.values()];
  }

  /** Records that every outbox record up to `through` was on the log before it ended at `ends`. */
  recordPublication(through: number, ends: readonly LogEnd[]): void {
    this.statements.publish.run(through, JSON.stringify(checkedLogEnds(ends)));
  }

  private publicationOf(row: WriteTraceRow): string | null {
    if (row.publishedbefore !== null) return row.publishedbefore;
    // Only a trace whose change log the commit appended has a publication to report.
    if (row.outboxposition === null || row.changelogged !== 1) return null;
    return this.statements.covering.get(row.outboxposition)?.ends ?? null;
  }
}

function toWriteTrace(row: WriteTraceRow, publishedBefore: string | null): WriteTrace {
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
    publishedBefore: publishedBefore === null ? null : (JSON.parse(publishedBefore) as LogEnd[]),
  };
}
