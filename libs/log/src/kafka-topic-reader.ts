import type { Consumer, EachBatchPayload } from 'kafkajs';

import type { Scheduler } from '@strata/timing';
import { toLogRecord } from './kafka-subscription';
import type { LogRecord } from './message-log';

/** What one read of a {@link KafkaTopicReader} answers. */
export interface KafkaTopicReadResult {
  readonly records: LogRecord[];
  /** Per partition read, where the next read continues. */
  readonly next: Map<number, bigint>;
}

/** The read in progress: what it expects of each partition, and what it collected. */
interface ActiveRead {
  readonly expected: Map<number, bigint>;
  readonly records: LogRecord[];
  readonly limit: number;
  closed: boolean;
  readonly answer: () => void;
}

/**
 * Reads one topic from positions its caller gives, for `readTopic`: kafkajs has no consumer outside a group (no
 * `assign`), so a reader is one kafkajs consumer alone in a group of its own that never commits, kept paused between
 * reads. A read seeks every partition it names to its position, resumes, collects the records at or past those
 * positions until it has some (or `limit`, or its wait ends), then pauses again. A batch fetched before the seeks
 * (`isStale`) or after the read ended is passed over, and offsets before a partition's position are skipped, so a
 * read answers only the records it asked for, each once. Reads of one reader run one at a time.
 */
export class KafkaTopicReader {
  private consumer: Promise<Consumer> | undefined;
  private active: ActiveRead | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly topic: string,
    private readonly createConsumer: () => Consumer,
    private readonly scheduler: Scheduler,
  ) {}

  /** Reads from `starts` (partition → offset): at most `limit` records, waiting up to `maxWaitMs` for the first. */
  read(
    starts: ReadonlyMap<number, bigint>,
    limit: number,
    maxWaitMs: number,
    signal: AbortSignal | undefined,
  ): Promise<KafkaTopicReadResult> {
    const run = this.tail.then(() => this.readNow(starts, limit, maxWaitMs, signal));
    this.tail = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.tail;
    const consumer = await this.consumer?.catch(() => undefined);
    this.consumer = undefined;
    await consumer?.disconnect().catch(() => undefined);
  }

  private async readNow(
    starts: ReadonlyMap<number, bigint>,
    limit: number,
    maxWaitMs: number,
    signal: AbortSignal | undefined,
  ): Promise<KafkaTopicReadResult> {
    if (this.closed) throw new Error(`The reader of ${this.topic} is closed`);
    const consumer = await this.started();
    const wake = new AbortController();
    const read: ActiveRead = {
      expected: new Map(starts),
      records: [],
      limit,
      closed: false,
      answer: () => {
        wake.abort();
      },
    };
    const onAbort = () => {
      wake.abort();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    this.active = read;
    try {
      for (const [partition, offset] of starts) consumer.seek({ topic: this.topic, partition, offset: String(offset) });
      consumer.resume([{ topic: this.topic }]);
      await this.scheduler.sleep(maxWaitMs, wake.signal);
    } finally {
      read.closed = true;
      this.active = undefined;
      signal?.removeEventListener('abort', onAbort);
      consumer.pause([{ topic: this.topic }]);
    }
    return { records: read.records, next: read.expected };
  }

  /** The consumer, joined to its group and paused; started on the first read, again after a crash. */
  private started(): Promise<Consumer> {
    this.consumer ??= (async () => {
      const consumer = this.createConsumer();
      try {
        const joined = new Promise<void>((resolve) => {
          consumer.on(consumer.events.GROUP_JOIN, () => {
            // Nothing is read until a read resumes: what the consumer fetched meanwhile is passed over.
            consumer.pause([{ topic: this.topic }]);
            resolve();
          });
        });
        consumer.on(consumer.events.CRASH, () => {
          this.consumer = undefined;
          this.active?.answer();
          void consumer.disconnect().catch(() => undefined);
        });
        await consumer.connect();
        await consumer.subscribe({ topics: [this.topic], fromBeginning: false });
        await consumer.run({ autoCommit: false, eachBatch: (payload) => this.take(payload) });
        await joined;
        return consumer;
      } catch (error) {
        this.consumer = undefined;
        await consumer.disconnect().catch(() => undefined);
        throw error;
      }
    })();
    return this.consumer;
  }

  /** A fetched batch: its records the read in progress asked for, in order; the read answers once it has some. */
  private take(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const read = this.active;
    if (read === undefined || read.closed || batch.topic !== this.topic || payload.isStale()) return Promise.resolve();
    for (const message of batch.messages) {
      const expected = read.expected.get(batch.partition);
      if (expected === undefined || read.records.length >= read.limit) break;
      const offset = BigInt(message.offset);
      if (offset < expected) continue;
      read.records.push(toLogRecord(batch.topic, batch.partition, message));
      read.expected.set(batch.partition, offset + 1n);
    }
    if (read.records.length > 0) {
      read.closed = true;
      read.answer();
    }
    return Promise.resolve();
  }
}
