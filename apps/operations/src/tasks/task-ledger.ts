import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { closeDatabase, openDatabase } from '@strata/sqlite';
import type { TaskReport } from '../domain/operations-answers';

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
  /** What the task was asked to do, as recorded when it was created. */
  readonly request: unknown;
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
 * INTERRUPTED}) rather than vanishing — unless its kind is `resumable`, whose tasks stay unfinished for their owner to
 * take up again ({@link TaskLedger.unfinished}). One process opens the file at a time (the data directory's lock).
 */
export class TaskLedger {
  readonly nodeId: string;
  private readonly db: Database.Database;
  private readonly statements;

  constructor(options: { readonly path: string; readonly now: () => number; readonly resumable?: readonly string[] }) {
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
      select: db.prepare<[number], TaskRow>(`SELECT ${TASK_COLUMNS} FROM operations_task WHERE number = ?`),
      unfinished: db.prepare<[string], TaskRow>(
        `SELECT ${TASK_COLUMNS} FROM operations_task WHERE kind = ? AND completed = 0 ORDER BY number`,
      ),
      newest: db.prepare<[string, number], TaskRow>(
        `SELECT ${TASK_COLUMNS} FROM operations_task WHERE kind = ? ORDER BY number DESC LIMIT ?`,
      ),
    };
    db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('node_id', ?)").run(
      randomBytes(16).toString('base64url'),
    );
    this.nodeId = db.prepare<[], string>("SELECT value FROM meta WHERE key = 'node_id'").pluck().get() ?? '';
    const resumable = options.resumable ?? [];
    db.prepare<[string, number, string]>(
      'UPDATE operations_task SET completed = 1, error = ?, finished_at = ? WHERE completed = 0 AND kind NOT IN (SELECT value FROM json_each(?))',
    ).run(JSON.stringify(INTERRUPTED), options.now(), JSON.stringify(resumable));
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
    return row === undefined ? undefined : this.taskOf(row);
  }

  /** A task of this ledger as getEsTaskStatus reports it, at `now`; undefined when it has no such task. */
  report(task: { readonly nodeId: string; readonly number: number }, now: number): TaskReport | undefined {
    if (task.nodeId !== this.nodeId) return undefined;
    const record = this.get(task.number);
    if (record === undefined) return undefined;
    return {
      completed: record.completed,
      runTimeNanos: ((record.finishedAt ?? now) - record.startedAt) * 1_000_000,
      status: record.counters,
      error: record.error,
    };
  }

  /** The tasks of a resumable kind left unfinished, oldest first. */
  unfinished(kind: string): LedgerTask[] {
    return this.statements.unfinished.all(kind).map((row) => this.taskOf(row));
  }

  /** The newest tasks of a kind, newest first, at most `limit`. */
  newest(kind: string, limit: number): LedgerTask[] {
    return this.statements.newest.all(kind, limit).map((row) => this.taskOf(row));
  }

  private taskOf(row: TaskRow): LedgerTask {
    return {
      nodeId: this.nodeId,
      number: row.number,
      kind: row.kind,
      request: JSON.parse(row.request) as unknown,
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

const TASK_COLUMNS = 'number, kind, request, started_at, completed, counters, error, finished_at';

interface TaskRow {
  readonly number: number;
  readonly kind: string;
  readonly request: string;
  readonly started_at: number;
  readonly completed: number;
  readonly counters: string;
  readonly error: string | null;
  readonly finished_at: number | null;
}
