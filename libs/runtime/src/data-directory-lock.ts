import { join } from 'node:path';
import { FileLockedError, lockFile, type FileLock } from '@strata/sqlite';

/** A held lock; `release` lets another process take it. */
export type DataDirectoryLock = FileLock;

/** Another process holds the lock: a second instance of the same service on the same data. */
export class DataDirectoryLockedError extends Error {
  constructor(
    readonly service: string,
    readonly dataDir: string,
  ) {
    super(
      `Another ${service} is running on the data directory ${dataDir}: its embedded files are locked, and only one ` +
        `instance of a service may use them. Stop the other instance or give this one its own DATA_DIR; to run ` +
        `several instances, put the service's data on the scale engines (MONGODB_URI, ELASTICSEARCH_URL).`,
    );
    this.name = 'DataDirectoryLockedError';
  }
}

/**
 * Takes `<dataDir>/<service>.lock`, guarding the embedded files a service keeps under `dataDir` (its SQLite store or
 * indices) against a second instance of the same service. The lock (`lockFile` of `@strata/sqlite`) is released by the
 * operating system when the process ends, however it ends (a SIGKILL included): a restarted service never waits for
 * a stale lock. Services that only share the data directory (and its SQLite log)
 * take different locks and keep working side by side.
 */
export function lockDataDirectory(dataDir: string, service: string): DataDirectoryLock {
  try {
    return lockFile(join(dataDir, `${service}.lock`));
  } catch (error) {
    if (error instanceof FileLockedError) throw new DataDirectoryLockedError(service, dataDir);
    throw error;
  }
}
