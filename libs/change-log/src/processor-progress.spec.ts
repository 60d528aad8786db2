import type { LogRecord } from '@strata/log';
import { backlogOf, ProcessorProgress } from './processor-progress';

const topic = 'MetadataChangeLog_Versioned_v1';

function record(offset: number, timestamp: number): LogRecord {
  return { topic, partition: 0, offset: String(offset), key: 'k', value: Buffer.alloc(0), headers: {}, timestamp };
}

describe('backlogOf', () => {
  it('given group positions beside the ends, then each partition counts what is left from its position, and the total sums them', () => {
    const backlog = backlogOf(
      'search-indexer',
      [
        { topic, partition: 0, start: '0', end: '10', committed: '4' },
        // Never committed: the consumer reads from the start.
        { topic, partition: 1, start: '2', end: '5', committed: undefined },
        // Committed below what the log still holds (retention removed it): it resumes at the start.
        { topic, partition: 2, start: '7', end: '9', committed: '3' },
        // Kafka offsets beyond 2^53 are exact.
        { topic, partition: 3, start: '0', end: '9007199254740999', committed: '9007199254740993' },
      ],
      1_000,
    );
    expect(backlog).toEqual({
      indexer: 'search-indexer',
      measuredAt: 1_000,
      pending: 6 + 3 + 2 + 6,
      partitions: [
        { topic, partition: 0, end: '10', position: '4', pending: 6 },
        { topic, partition: 1, end: '5', position: '2', pending: 3 },
        { topic, partition: 2, end: '9', position: '7', pending: 2 },
        { topic, partition: 3, end: '9007199254740999', position: '9007199254740993', pending: 6 },
      ],
    });
  });

  it('given no partitions (the topics do not exist yet), then nothing is pending', () => {
    expect(backlogOf('timeseries-indexer', [], 5)).toEqual({
      indexer: 'timeseries-indexer',
      measuredAt: 5,
      pending: 0,
      partitions: [],
    });
  });
});

describe('ProcessorProgress', () => {
  it('given a batch handled late, when nothing is pending, then no lag shows, however long ago it was; when some is, the lag is the age of the last change log handled', () => {
    const progress = new ProcessorProgress('search-indexer', ['search']);
    const batch = [record(0, 1_000), record(1, 2_000)];
    progress.hookHandled('search', batch, batch, 7_000);
    progress.batchHandled(batch, 7_000);

    const caughtUp = progress.report({
      indexer: 'search-indexer',
      measuredAt: 600_000,
      pending: 0,
      partitions: [{ topic, partition: 0, end: '2', position: '2', pending: 0 }],
    });
    expect(caughtUp.partitions).toEqual([
      { topic, partition: 0, offset: '1', recordTimestamp: 2_000, appliedAt: 7_000, lagMs: 0 },
    ]);
    expect(caughtUp.hooks[0]?.partitions).toMatchObject([{ offset: '1', lagMs: 0 }]);
    expect(caughtUp.backlog.pending).toBe(0);

    const behind = progress.report({
      indexer: 'search-indexer',
      measuredAt: 600_000,
      pending: 4,
      partitions: [{ topic, partition: 0, end: '6', position: '2', pending: 4 }],
    });
    expect(behind.partitions).toMatchObject([{ offset: '1', lagMs: 598_000 }]);
    expect(behind.hooks[0]?.partitions).toMatchObject([{ offset: '1', lagMs: 598_000 }]);
    expect(behind.backlog.pending).toBe(4);
  });
});
