import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirectoryLockedError, lockDataDirectory } from './data-directory-lock';

describe('lockDataDirectory', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'strata-lock-'));
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a second holder of one service’s lock with a clear error, until the first releases it', () => {
    const first = lockDataDirectory(dataDir, 'search-indexer');
    let error: unknown;
    try {
      lockDataDirectory(dataDir, 'search-indexer');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DataDirectoryLockedError);
    expect((error as Error).message).toContain(`Another search-indexer is running on the data directory ${dataDir}`);
    first.release();
    lockDataDirectory(dataDir, 'search-indexer').release();
  });

  it('lets different services lock the same data directory', () => {
    const writer = lockDataDirectory(dataDir, 'metadata-writer');
    const indexer = lockDataDirectory(dataDir, 'search-indexer');
    writer.release();
    indexer.release();
  });

  it('is held across processes, and freed when the holding process is killed', async () => {
    // Another process holds the lock the same way (an exclusive transaction on the lock file), then is killed.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
         const db = new Database(process.argv[1]);
         db.pragma('locking_mode = EXCLUSIVE');
         db.exec('BEGIN EXCLUSIVE');
         console.log('held');
         setInterval(() => undefined, 1000);`,
        join(dataDir, 'search-indexer.lock'),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => {
      holder.stdout.once('data', () => {
        resolve();
      });
    });
    expect(() => lockDataDirectory(dataDir, 'search-indexer')).toThrow(DataDirectoryLockedError);
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    lockDataDirectory(dataDir, 'search-indexer').release();
  });
});
