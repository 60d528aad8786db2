import Database from 'better-sqlite3';
import { BackgroundCheckpoints } from './background-checkpoints';

export interface DatabaseOptions {
  /**
   * SQLite's `synchronous` in write-ahead-log mode: `FULL` syncs the log at every commit, so a commit survives a power
   * loss; `NORMAL` only at checkpoints, so a commit survives the process's crash but not the machine's.
   */
  readonly synchronous: 'NORMAL' | 'FULL';
  /** How long a statement waits for another connection's lock before it fails with SQLITE_BUSY, in milliseconds. */
  readonly busyTimeoutMs: number;
  /** SQL run once the file is open, typically `CREATE TABLE IF NOT EXISTS …`; if it fails, the file is closed. */
  readonly schema?: string;
}

/** The one worker thread of this process that checkpoints every database opened here. */
const checkpoints = new BackgroundCheckpoints();

/**
 * Opens (creating it if missing) a SQLite file as every embedded engine uses one: in write-ahead-log mode, so that
 * readers never wait for the writer, with the given durability and lock wait, and checkpointed on a worker thread
 * ({@link BackgroundCheckpoints}) rather than by whichever commit fills the log. Close it with {@link closeDatabase}.
 */
export function openDatabase(path: string, options: DatabaseOptions): Database.Database {
  if (!Number.isSafeInteger(options.busyTimeoutMs) || options.busyTimeoutMs < 0) {
    throw new Error(`busyTimeoutMs must be a non-negative integer, got ${options.busyTimeoutMs}`);
  }
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous}`);
    db.pragma(`busy_timeout = ${options.busyTimeoutMs}`);
    if (options.schema !== undefined) db.exec(options.schema);
    checkpoints.watch(db);
  } catch (error) {
    closeDatabase(db);
    throw error;
  }
  return db;
}

/** Closes a database opened with {@link openDatabase}, and ends its background checkpoints. Closing twice is a no-op. */
export function closeDatabase(db: Database.Database): void {
  checkpoints.unwatch(db);
  if (db.open) db.close();
}
