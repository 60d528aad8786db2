import Database from 'better-sqlite3';

/** A held lock; `release` lets another holder take it. Releasing twice does nothing. */
export interface FileLock {
  readonly path: string;
  release(): void;
}

/** The lock is held elsewhere: by another connection in this process, or by another process. */
export class FileLockedError extends Error {
  constructor(readonly path: string) {
    super(`${path} is locked by another holder`);
    this.name = 'FileLockedError';
  }
}

/**
 * Takes an exclusive lock on `path` (a small SQLite file, created if missing): an exclusive transaction held open on
 * it. The operating system releases it when the process ends, however it ends (a SIGKILL included), so a restarted
 * process never waits for a stale lock. Throws {@link FileLockedError} at once when it is held elsewhere.
 */
export function lockFile(path: string): FileLock {
  const db = new Database(path);
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY') throw new FileLockedError(path);
    throw error;
  }
  return {
    path,
    release: () => {
      if (db.open) db.close();
    },
  };
}
