import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { closeDatabase, openDatabase } from '@strata/sqlite';

const LEDGER_SCHEMA = `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS operations_task (
    number INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    request TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    completed INTEGER NOT NULL DEFAULT 0,
    counters TEXT NOT NULL,
    error TEXT,
    finished_at INTEGER
  );
`;

/** A task this service runs, as its ledger keeps it. */
export interface LedgerTask {
  readonly nodeId: string;
  readonly number: number;
  readonly kind: string;
  readonly startedAt: number;
  readonly completed: boolean;
  readonly counters: Readonly<Record<string, unknown>>;
  readonly error: { readonly type: string; readonly reason: string } | undefined;
  readonly finishedAt: number | undefined;
}

/** What a task a stopped process left unfinished reports. */
export const INTERRUPTED = {
  type: 'task_interrupted',
  reason: 'the operations service stopped before the task finished; start it again',
} as const;

/**
 * The operations service's own tasks (a full rebuild of the indices), kept in a SQLite file so that their status
 * outlives the process: named `<node id>:<number>` as Elasticsearch names its tasks, the node id made once per file.
 * At open, a task the file says is running was left by a process that stopped: it is marked failed ({@link
 * INTERRUPTED}) rather than vanishing. One process opens the file at a time (the data directory's lock).
 */
export class TaskLedger {
  readonly nodeId: string;
  private readonly db: Database.Database;
  private readonly statements;

  constructor(options: { readonly path: string; readonly now: () => number }) {
    const db = openDatabase(options.path, { synchronous: 'FULL', busyTimeoutMs: 5_000, schema: LEDGER_SCHEMA });
    this.db = db;
    this.statements = {
      insert: db.prepare<[string, string, number, string]>(
        'INSERT INTO operations_task (kind, request, started_at, counters) VALUES (?, ?, ?, ?)',
      ),
      update: db.prepare<[string, number]>('UPDATE operations_task SET counters = ? WHERE number = ?'),
      finish: db.prepare<[string, string | null, number, number]>(
        'UPDATE operations_task SET counters = ?, completed = 1, error = ?, finished_at = ? WHERE number = ?',
      ),
      select: db.prepare<[number], TaskRow>(
        'SELECT number, kind, started_at, completed, counters, error, finished_at FROM operations_task WHERE number = ?',
      ),
    };
    db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('node_id', ?)").run(
      randomBytes(16).toString('base64url'),
    );
    this.nodeId = db.prepare<[], string>("SELECT value FROM meta WHERE key = 'node_id'").pluck().get() ?? '';
    db.prepare<[string, number]>(
      'UPDATE operations_task SET completed = 1, error = ?, finished_at = ? WHERE completed = 0',
    ).run(JSON.stringify(INTERRUPTED), options.now());
  }

  /** Records a new task, running; answers its number. */
  create(kind: string, request: unknown, startedAt: number, counters: object): number {
    const { lastInsertRowid } = this.statements.insert.run(
      kind,
      JSON.stringify(request),
      startedAt,
      JSON.stringify(counters),
    );
    return Number(lastInsertRowid);
  }

  /** A running task's progress. */
  update(number: number, counters: object): void {
    this.statements.update.run(JSON.stringify(counters), number);
  }

  /** A task's end, with its last counters, and why it failed if it did. */
  finish(
    number: number,
    counters: object,
    finishedAt: number,
    error?: { readonly type: string; readonly reason: string },
  ): void {
    this.statements.finish.run(
      JSON.stringify(counters),
      error === undefined ? null : JSON.stringify(error),
      finishedAt,
      number,
    );
  }

  get(number: number): LedgerTask | undefined {
    const row = this.statements.select.get(number);
    if (row === undefined) return undefined;
    return {
      nodeId: this.nodeId,
      number: row.number,
      kind: row.kind,
      startedAt: row.started_at,
      completed: row.completed === 1,
      counters: JSON.parse(row.counters) as Record<string, unknown>,
      error: row.error === null ? undefined : (JSON.parse(row.error) as LedgerTask['error']),
      finishedAt: row.finished_at ?? undefined,
    };
  }

  close(): Promise<void> {
    closeDatabase(this.db);
    return Promise.resolve();
  }
}

interface TaskRow {
  readonly number: number;
  readonly kind: string;
  readonly started_at: number;
  readonly completed: number;
  readonly counters: string;
  readonly error: string | null;
  readonly finished_at: number | null;
}
