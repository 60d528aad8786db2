import type { LogRecord } from '@strata/log';
import { IndexProgress } from './index-progress';

function record(partition: number, offset: number, timestamp: number): LogRecord {
  return {
    topic: 'MetadataChangeLog_Versioned_v1',
    partition,
    offset: String(offset),
    key: 'urn:li:corpuser:x',
    value: Buffer.alloc(0),
    headers: {},
    timestamp,
  };
}

describe('IndexProgress', () => {
  it('reports no lag before anything is applied', () => {
    expect(new IndexProgress('search-indexer').report()).toEqual({
      indexer: 'search-indexer',
      recordsApplied: 0,
      partitions: [],
    });
  });

  it('reports each partition’s last record and lag, and percentiles over the recent records', async () => {
    const progress = new IndexProgress('search-indexer');
    // 100 records with lags 1..100 ms on partition 0, then one on partition 1.
    progress.applied(
      Array.from({ length: 100 }, (_unused, i) => record(0, i, 1_000 - (i + 1))),
      1_000,
    );
    progress.applied([record(1, 7, 990)], 1_000);

    const report = progress.report();
    expect(report.recordsApplied).toBe(101);
    expect(report.partitions).toEqual([
      {
        topic: 'MetadataChangeLog_Versioned_v1',
        partition: 0,
        offset: '99',
        recordTimestamp: 900,
        appliedAt: 1_000,
        lagMs: 100,
      },
      {
        topic: 'MetadataChangeLog_Versioned_v1',
        partition: 1,
        offset: '7',
        recordTimestamp: 990,
        appliedAt: 1_000,
        lagMs: 10,
      },
    ]);
    expect(report.recentLagMs).toEqual({ records: 101, p50: 50, p95: 95, p99: 99, max: 100 });
    const metrics = await progress.registry.metrics();
    expect(metrics).toContain('strata_index_records_applied_total{indexer="search-indexer"} 101');
    expect(metrics).toContain(
      'strata_index_last_lag_seconds{indexer="search-indexer",topic="MetadataChangeLog_Versioned_v1",partition="1"} 0.01',
    );
  });
});
