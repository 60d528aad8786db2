export { closeDatabase, openDatabase } from './database';
export type { DatabaseOptions } from './database';
export { BackgroundCheckpoints, CHECKPOINT_INTERVAL_MS, FOREGROUND_CHECKPOINT_PAGES } from './background-checkpoints';
export { FileLockedError, lockFile } from './file-lock';
export type { FileLock } from './file-lock';
