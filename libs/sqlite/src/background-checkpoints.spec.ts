import { afterEach, describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import { mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BackgroundCheckpoints, FOREGROUND_CHECKPOINT_PAGES } from './background-checkpoints';
import { closeDatabase, openDatabase } from './database';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function freshPath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'strata-sqlite-'));
  directories.push(directory);
  return join(directory, 'test.db');
}

function walDatabase(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  return db;
}

/** Writes about 2 MB in one transaction: some 500 pages of the write-ahead log, below any checkpoint threshold. */
function writeRows(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, body TEXT)');
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  db.transaction(() => {
    for (let n = 0; n < 2_000; n++) insert.run('x'.repeat(1_000));
  })();
}

/** Retries `check` until it passes, for up to five seconds (this library cannot use `@strata/testing`'s helper). */
async function eventually(check: () => void): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

const autocheckpoint = (db: Database.Database) => db.pragma('wal_autocheckpoint', { simple: true });

describe('background checkpoints', () => {
  it('copies committed pages into the database file from the worker, not from the committing connection', async () => {
    const path = freshPath();
    const db = openDatabase(path, { synchronous: 'NORMAL', busyTimeoutMs: 1_000 });
    try {
      expect(autocheckpoint(db)).toBe(FOREGROUND_CHECKPOINT_PAGES);
      writeRows(db);
      // The commit left its pages in the log; only a checkpoint moves them into the database file.
      await eventually(() => {
        expect(statSync(path).size).toBeGreaterThan(2_000_000);
      });
      expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(2_000);
    } finally {
      closeDatabase(db);
    }
  });

  it('leaves a database file alone without a background checkpoint (the check above can fail)', () => {
    const path = freshPath();
    const db = walDatabase(path);
    try {
      writeRows(db);
      expect(statSync(path).size).toBeLessThan(100_000);
    } finally {
      db.close();
    }
  });

  it('ends its worker with the last watched file, and starts one again for the next', async () => {
    const checkpoints = new BackgroundCheckpoints({ intervalMs: 10 });
    const first = walDatabase(freshPath());
    const second = walDatabase(freshPath());
    checkpoints.watch(first);
    checkpoints.watch(second);
    expect(checkpoints.watching).toBe(2);
    checkpoints.unwatch(first);
    checkpoints.unwatch(second);
    expect(checkpoints.watching).toBe(0);
    first.close();
    second.close();

    const path = freshPath();
    const third = walDatabase(path);
    checkpoints.watch(third);
    writeRows(third);
    await eventually(() => {
      expect(statSync(path).size).toBeGreaterThan(2_000_000);
    });
    checkpoints.unwatch(third);
    third.close();
  });

  it('gives checkpoints back to the connection, with a warning, when the worker fails', async () => {
    const warnings: string[] = [];
    const checkpoints = new BackgroundCheckpoints({
      workerSource: 'throw new Error("no threads here")',
      warn: (message) => warnings.push(message),
    });
    const db = walDatabase(freshPath());
    try {
      checkpoints.watch(db);
      await eventually(() => {
        expect(checkpoints.watching).toBe(0);
      });
      expect(autocheckpoint(db)).toBe(1_000);
      expect(warnings).toEqual([expect.stringContaining('the checkpoint worker failed: no threads here')]);
    } finally {
      db.close();
    }
  });

  it('gives one file back to its connection when the worker cannot checkpoint it', async () => {
    const warnings: string[] = [];
    const checkpoints = new BackgroundCheckpoints({ intervalMs: 10, warn: (message) => warnings.push(message) });
    const kept = walDatabase(freshPath());
    // An open connection whose path now names something else: what the worker opens there is not a database.
    const path = freshPath();
    const moved = walDatabase(path);
    renameSync(path, `${path}.moved`);
    writeFileSync(path, 'not a database, but long enough to be read as one '.repeat(100));
    try {
      checkpoints.watch(kept);
      checkpoints.watch(moved);
      expect(autocheckpoint(moved)).toBe(FOREGROUND_CHECKPOINT_PAGES);
      await eventually(() => {
        expect(checkpoints.watching).toBe(1);
      });
      expect(autocheckpoint(moved)).toBe(1_000);
      expect(autocheckpoint(kept)).toBe(FOREGROUND_CHECKPOINT_PAGES);
      expect(warnings).toEqual([expect.stringContaining('file is not a database')]);
    } finally {
      checkpoints.unwatch(kept);
      kept.close();
      moved.close();
    }
  });

  it('opens a file with its schema, and refuses one whose schema fails, leaving nothing open', () => {
    const path = freshPath();
    const db = openDatabase(path, {
      synchronous: 'FULL',
      busyTimeoutMs: 0,
      schema: 'CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY)',
    });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    closeDatabase(db);
    closeDatabase(db);
    expect(() => openDatabase(path, { synchronous: 'NORMAL', busyTimeoutMs: 0, schema: 'NOT SQL' })).toThrow(
      /syntax error|incomplete input/,
    );
    // Nothing holds the file: an exclusive lock on it is granted at once.
    const other = new Database(path);
    other.pragma('busy_timeout = 0');
    expect(() => other.exec('BEGIN EXCLUSIVE; COMMIT')).not.toThrow();
    other.close();
    expect(() => openDatabase(path, { synchronous: 'NORMAL', busyTimeoutMs: -1 })).toThrow(/busyTimeoutMs/);
  });

  it('leaves in-memory databases alone', () => {
    const checkpoints = new BackgroundCheckpoints();
    const db = new Database(':memory:');
    checkpoints.watch(db);
    expect(checkpoints.watching).toBe(0);
    db.close();
  });
});
