import type Database from 'better-sqlite3';
import { Worker } from 'node:worker_threads';

/**
 * How often the worker checkpoints each file it watches, in milliseconds. Each checkpoint that copies pages also syncs
 * the log and the database file; once a second keeps those syncs from competing with the commits' own.
 */
export const CHECKPOINT_INTERVAL_MS = 1_000;

/**
 * The write-ahead log size, in pages, at which a watched connection still checkpoints on its own thread after a commit
 * (SQLite's default is 1,000 pages). The background checkpoints keep the log far below it; it bounds the log should
 * they fall behind, and lets the log restart from its beginning under writes that never pause.
 */
export const FOREGROUND_CHECKPOINT_PAGES = 16_384;

/** SQLite's own threshold, which a connection returns to when the background checkpoints stop. */
const SQLITE_DEFAULT_CHECKPOINT_PAGES = 1_000;

/** What the main thread tells the worker. */
type Command = { readonly watch: number; readonly path: string } | { readonly unwatch: number };
/** What the worker tells the main thread: a file it could not open or checkpoint, and no longer watches. */
interface Failure {
  readonly failed: number;
  readonly reason: string;
}

/**
 * The worker thread's code. It runs from source (`eval`), so that the built library and tests running from the
 * TypeScript sources start the same worker; it uses nothing but what it requires itself and its `workerData`.
 *
 * Each watched file gets its own connection, which runs a PASSIVE checkpoint every interval: it copies the
 * write-ahead log's committed pages into the database file without taking a lock that any reader or writer waits on,
 * and does nothing when there is nothing new.
 */
function checkpointWorker(): void {
  /* eslint-disable @typescript-eslint/no-require-imports -- an eval worker has no imports, only require */
  const threads = require('node:worker_threads') as typeof import('node:worker_threads');
  const data = threads.workerData as { driver: string; intervalMs: number };
  const Driver = require(data.driver) as typeof import('better-sqlite3');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const port = threads.parentPort;
  if (port === null) return;
  const connections = new Map<number, import('better-sqlite3').Database>();
  const fail = (id: number, error: unknown) => {
    connections.get(id)?.close();
    connections.delete(id);
    port.postMessage({ failed: id, reason: error instanceof Error ? error.message : String(error) });
  };
  port.on('message', (command: Command) => {
    if ('watch' in command) {
      try {
        connections.set(command.watch, new Driver(command.path, { fileMustExist: true }));
      } catch (error) {
        fail(command.watch, error);
      }
    } else {
      connections.get(command.unwatch)?.close();
      connections.delete(command.unwatch);
    }
  });
  setInterval(() => {
    for (const [id, connection] of connections) {
      try {
        connection.pragma('wal_checkpoint(PASSIVE)');
      } catch (error) {
        fail(id, error);
      }
    }
  }, data.intervalMs);
}

export interface BackgroundCheckpointsOptions {
  /** Default {@link CHECKPOINT_INTERVAL_MS}. */
  readonly intervalMs?: number;
  /** The worker's source; tests give a failing one. Default: {@link checkpointWorker}'s. */
  readonly workerSource?: string;
  /** Told when a file goes back to checkpointing on the main thread. Default: a process warning. */
  readonly warn?: (message: string) => void;
}

/**
 * Checkpoints SQLite files on a worker thread. SQLite checkpoints a write-ahead log in the connection that commits,
 * once the log passes 1,000 pages: the commit that crosses it copies those pages into the database file and syncs it
 * before it returns, which on the one thread a Node process has stalls every request for tens to hundreds of
 * milliseconds (a transaction writing 50,000 graph edges spent more than half its commit there). A watched connection
 * leaves that to a worker instead, which checkpoints every file it watches every {@link CHECKPOINT_INTERVAL_MS}, in
 * parallel with the main thread; the connection itself checkpoints only past {@link FOREGROUND_CHECKPOINT_PAGES}.
 *
 * Durability does not change: a commit is as durable as its `synchronous` setting makes it in the write-ahead log,
 * whoever checkpoints it later. The worker starts with the first watched file and ends with the last, never keeps the
 * process alive, and should it fail, every watched connection goes back to checkpointing itself, with a warning.
 */
export class BackgroundCheckpoints {
  private readonly intervalMs: number;
  private readonly source: string;
  private readonly warn: (message: string) => void;
  private worker: Worker | undefined;
  private readonly watched = new Map<Database.Database, number>();
  private nextId = 1;

  constructor(options: BackgroundCheckpointsOptions = {}) {
    this.intervalMs = options.intervalMs ?? CHECKPOINT_INTERVAL_MS;
    this.source = options.workerSource ?? `(${checkpointWorker.toString()})();`;
    this.warn =
      options.warn ??
      ((message) => {
        process.emitWarning(message, 'StrataSqliteWarning');
      });
  }

  /** The connections whose files the worker checkpoints. */
  get watching(): number {
    return this.watched.size;
  }

  /** Checkpoints `db`'s file in the background from now on. In-memory and non-WAL databases are left as they are. */
  watch(db: Database.Database): void {
    if (db.memory || this.watched.has(db)) return;
    if (db.pragma('journal_mode', { simple: true }) !== 'wal') return;
    const id = this.nextId++;
    db.pragma(`wal_autocheckpoint = ${FOREGROUND_CHECKPOINT_PAGES}`);
    this.watched.set(db, id);
    this.workerThread().postMessage({ watch: id, path: db.name } satisfies Command);
  }

  /** Stops checkpointing `db`'s file (before the connection closes). */
  unwatch(db: Database.Database): void {
    const id = this.watched.get(db);
    if (id === undefined) return;
    this.watched.delete(db);
    this.worker?.postMessage({ unwatch: id } satisfies Command);
    if (this.watched.size === 0) this.stopWorker();
  }

  private workerThread(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = new Worker(this.source, {
      eval: true,
      workerData: { driver: require.resolve('better-sqlite3'), intervalMs: this.intervalMs },
    });
    worker.unref();
    worker.on('message', (message: Failure) => {
      const db = [...this.watched].find(([, id]) => id === message.failed)?.[0];
      if (db !== undefined) this.checkpointInForeground(db, `checkpointing ${db.name} failed: ${message.reason}`);
    });
    worker.on('error', (error) => {
      this.workerFailed(worker, `the checkpoint worker failed: ${error.message}`);
    });
    worker.on('exit', (code) => {
      this.workerFailed(worker, `the checkpoint worker exited with code ${code}`);
    });
    this.worker = worker;
    return worker;
  }

  private stopWorker(): void {
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
  }

  /** A worker that ended while it was still wanted: every connection it served checkpoints itself again. */
  private workerFailed(worker: Worker, reason: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    void worker.terminate();
    for (const db of [...this.watched.keys()]) this.checkpointInForeground(db, reason);
  }

  private checkpointInForeground(db: Database.Database, reason: string): void {
    this.watched.delete(db);
    if (db.open) db.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_CHECKPOINT_PAGES}`);
    this.warn(`${reason}; SQLite checkpoints ${db.name} on the main thread again`);
    if (this.watched.size === 0) this.stopWorker();
  }
}
