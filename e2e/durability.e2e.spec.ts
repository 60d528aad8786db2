/**
 * Durability of acknowledged writes across stops and crashes, with Strata run as a user runs it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, startStandalone, TestHttpClient } from '@strata/testing';
import { sequenceOf, storedVersions, writeVersion } from './support/versioned-writes';

const writers = 8;
const tagUrn = (writer: number) => `urn:li:tag:durable-${writer}`;

describe('durability', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'strata-durability-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged write, exactly once and in order, when the process is killed mid-stream', async () => {
    const strata = await startStandalone({ dataDir });
    const http = new TestHttpClient(strata.baseUrl);
    const acknowledged = new Array<number>(writers).fill(0);
    const attempted = new Array<number>(writers).fill(0);
    let killed = false;
    const streams = Array.from({ length: writers }, async (_unused, writer) => {
      for (let sequence = 1; !killed; sequence++) {
        attempted[writer] = sequence;
        const response = await writeVersion(http, tagUrn(writer), sequence).catch(() => undefined);
        if (!response) return;
        expect(response.status).toBe(200);
        acknowledged[writer] = sequence;
      }
    });
    // Kill once a good number of writes is acknowledged, while every stream still has one in flight.
    await eventually(
      () => {
        expect(acknowledged.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(400);
      },
      { timeoutMs: 25_000, intervalMs: 5 },
    );
    killed = true;
    await strata.kill();
    await Promise.all(streams);

    const restarted = await startStandalone({ dataDir });
    try {
      const reader = new TestHttpClient(restarted.baseUrl);
      for (let writer = 0; writer < writers; writer++) {
        const stored = await storedVersions(reader, tagUrn(writer));
        // Every acknowledged write is there; at most the one in flight beyond it; no duplicate, no gap, in order.
        expect(stored.length).toBeGreaterThanOrEqual(acknowledged[writer]!);
        expect(stored.length).toBeLessThanOrEqual(attempted[writer]!);
        expect(stored).toEqual(sequenceOf(stored.length));
      }
      // The restarted process takes writes again, continuing the version sequence.
      const next = (await storedVersions(reader, tagUrn(0))).length + 1;
      expect((await writeVersion(reader, tagUrn(0), next)).status).toBe(200);
      expect(await storedVersions(reader, tagUrn(0))).toHaveLength(next);
    } finally {
      await restarted.stop();
    }
  });

  it('keeps every acknowledged write across a clean stop and start', async () => {
    const first = await startStandalone({ dataDir });
    const http = new TestHttpClient(first.baseUrl);
    for (let sequence = 1; sequence <= 5; sequence++)
      expect((await writeVersion(http, tagUrn(0), sequence)).status).toBe(200);
    expect(await first.stop()).toBe(0);

    const second = await startStandalone({ dataDir });
    try {
      expect(await storedVersions(new TestHttpClient(second.baseUrl), tagUrn(0))).toEqual([
        'v1',
        'v2',
        'v3',
        'v4',
        'v5',
      ]);
    } finally {
      await second.stop();
    }
  });
});
