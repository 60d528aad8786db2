import type { ConsumerRunConfig } from 'kafkajs';

// A stand-in for the kafkajs consumer, for the specs of what drives one: it records what is done with it and lets a
// test emit kafkajs's events. Test code only (not exported by the library).

export const events = { GROUP_JOIN: 'group_join', FETCH: 'fetch', CRASH: 'crash' } as const;

/** Records what the subscription does with its consumer, and lets the test emit kafkajs's events. */
export class FakeConsumer {
  readonly events = events;
  readonly listeners = new Map<string, ((event: { payload: unknown }) => void)[]>();
  runs: ConsumerRunConfig[] = [];
  disconnects = 0;
  readonly commits: unknown[] = [];

  on(name: string, listener: (event: { payload: unknown }) => void): void {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
  }
  emit(name: string, payload: unknown): void {
    for (const listener of this.listeners.get(name) ?? []) listener({ payload });
  }
  connect(): Promise<void> {
    return Promise.resolve();
  }
  subscribe(): Promise<void> {
    return Promise.resolve();
  }
  /** What `run` fails with, if anything (as kafkajs's does when the member cannot join its group). */
  runError: Error | undefined;
  run(config: ConsumerRunConfig): Promise<void> {
    this.runs.push(config);
    return this.runError === undefined ? Promise.resolve() : Promise.reject(this.runError);
  }
  disconnect(): Promise<void> {
    this.disconnects += 1;
    return Promise.resolve();
  }
  commitOffsets(offsets: unknown): Promise<void> {
    this.commits.push(offsets);
    return Promise.resolve();
  }
  /** Joined and fetched: what makes a `fromBeginning` member ready. */
  joinAndFetch(assignment: Record<string, number[]> = { t: [0] }): void {
    this.emit(events.GROUP_JOIN, { memberAssignment: assignment });
    this.emit(events.FETCH, {});
  }
}
