import type Database from 'better-sqlite3';
import { TimeSlice } from '@strata/timing';

/**
 * The writes of one SQLite connection, for an index that must not stall its process: each write is one
 * `BEGIN IMMEDIATE` transaction run in steps (a generator whose every step runs some statements), and between steps,
 * every few milliseconds, the event loop takes other work — requests, the other services of the process — so that a very
 * large document (100,000 owners: hundreds of thousands of rows) is written without holding everything up.
 *
 * Nothing else may use the connection while a write is open, so writes run one after the other and reads wait for the
 * write in progress ({@link afterWrites}): a read sees a write whole or not at all. A write that fails rolls back.
 */
export class SteppedWrites {
  /** The writes queued or in progress; reads start once they are done. */
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly db: Database.Database) {}

  /** Runs `steps` as one transaction, after the writes before it; resolves once it committed. */
  write(steps: () => Generator<void, void, undefined>): Promise<void> {
    const written = this.tail.then(() => this.run(steps()));
    this.tail = written.catch(() => undefined);
    return written;
  }

  /** Runs a read once the writes queued before it have committed or failed. */
  afterWrites<T>(read: () => T): Promise<T> {
    return this.tail.then(read);
  }

  private async run(steps: Generator<void, void, undefined>): Promise<void> {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const slice = new TimeSlice();
      for (let step = steps.next(); step.done !== true; step = steps.next()) {
        if (slice.spent) await slice.pause();
      }
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }
}
