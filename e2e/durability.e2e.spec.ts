/**
 * Durability of acknowledged writes across stops and crashes, with Strata run as a user runs it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStandalone, TestHttpClient } from '@strata/testing';

const writers = 8;
const tagUrn = (writer: number) => `urn:li:tag:durable-${writer}`;

function ingest(http: TestHttpClient, writer: number, sequence: number) {
  return http.post('/aspects?action=ingestProposal', {
    proposal: {
      entityType: 'tag',
      entityUrn: tagUrn(writer),
      changeType: 'UPSERT',
      aspectName: 'tagProperties',
      aspect: {
        value: JSON.stringify({ name: `durable-${writer}`, description: `v${sequence}` }),
        contentType: 'application/json',
      },
    },
  });
}

/** Every stored version of a writer's aspect, oldest first, as the descriptions written. */
async function history(http: TestHttpClient, writer: number): Promise<string[]> {
  const urn = encodeURIComponent(tagUrn(writer));
  const latest = await http.get(`/entitiesV2/${urn}?aspects=List(tagProperties)`);
  const aspect = (latest.json as { aspects: Record<string, { systemMetadata?: { version?: string } }> }).aspects[
    'tagProperties'
  ];
  const count = Number(aspect?.systemMetadata?.version ?? 0);
  const descriptions: string[] = [];
  for (let version = 1; version <= count; version++) {
    const response = await http.get(`/aspects/${urn}?aspect=tagProperties&version=${version}`);
    expect(response.status).toBe(200);
    descriptions.push(
      (response.json as { aspect: Record<string, { description: string }> }).aspect['com.linkedin.tag.TagProperties']!
        .description,
    );
  }
  return descriptions;
}

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
        const response = await ingest(http, writer, sequence).catch(() => undefined);
        if (!response) return;
        expect(response.status).toBe(200);
        acknowledged[writer] = sequence;
      }
    });
    // Kill once a good number of writes is acknowledged, while every stream still has one in flight.
    while (acknowledged.reduce((sum, count) => sum + count, 0) < 400)
      await new Promise((resolve) => setTimeout(resolve, 5));
    killed = true;
    await strata.kill();
    await Promise.all(streams);

    const restarted = await startStandalone({ dataDir });
    try {
      const reader = new TestHttpClient(restarted.baseUrl);
      for (let writer = 0; writer < writers; writer++) {
        const stored = await history(reader, writer);
        // Every acknowledged write is there; at most the one in flight beyond it; no duplicate, no gap, in order.
        expect(stored.length).toBeGreaterThanOrEqual(acknowledged[writer]!);
        expect(stored.length).toBeLessThanOrEqual(attempted[writer]!);
        expect(stored).toEqual(Array.from({ length: stored.length }, (_unused, index) => `v${index + 1}`));
      }
      // The restarted process takes writes again, continuing the version sequence.
      const next = (await history(reader, 0)).length + 1;
      expect((await ingest(reader, 0, next)).status).toBe(200);
      expect(await history(reader, 0)).toHaveLength(next);
    } finally {
      await restarted.stop();
    }
  });

  it('keeps every acknowledged write across a clean stop and start', async () => {
    const first = await startStandalone({ dataDir });
    const http = new TestHttpClient(first.baseUrl);
    for (let sequence = 1; sequence <= 5; sequence++) expect((await ingest(http, 0, sequence)).status).toBe(200);
    expect(await first.stop()).toBe(0);

    const second = await startStandalone({ dataDir });
    try {
      expect(await history(new TestHttpClient(second.baseUrl), 0)).toEqual(['v1', 'v2', 'v3', 'v4', 'v5']);
    } finally {
      await second.stop();
    }
  });
});
