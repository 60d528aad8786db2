/**
 * The distributed deployment survives its writer being killed mid-stream: gateway and metadata-writer run as separate
 * processes over Kafka; the writer is SIGKILLed while clients keep writing, then started again. Every acknowledged
 * proposal is stored exactly once, in order, and every stored change has its change log on the log.
 */
import { readSchemas } from '@strata/schemas';
import { createEventSerde } from '@strata/events';
import { KafkaMessageLog } from '@strata/log';
import {
  eventually,
  startDeployment,
  startKafkaTestBroker,
  TestHttpClient,
  type KafkaTestBroker,
  type RunningDeployment,
} from '@strata/testing';
import { sequenceOf, storedVersions, writeVersion } from './support/versioned-writes';
import { collectTopic } from './support/topic-collector';

const writers = 6;
const tagUrn = (writer: number) => `urn:li:tag:crash-${writer}`;
const serde = createEventSerde(readSchemas());

let broker: KafkaTestBroker;
let strata: RunningDeployment;

beforeAll(async () => {
  broker = await startKafkaTestBroker();
  strata = await startDeployment('distributed', { kafkaBrokers: broker.brokers });
});

afterAll(async () => {
  await strata.stop();
  strata.cleanUp();
  await broker.stop();
});

it('keeps every acknowledged write exactly once, with its change log, when the writer is killed mid-stream', async () => {
  const http = new TestHttpClient(strata.baseUrl);
  const acknowledged = new Array<number>(writers).fill(0);
  const attempted = new Array<number>(writers).fill(0);
  let stopWriting = false;
  const streams = Array.from({ length: writers }, async (_unused, writer) => {
    for (let sequence = 1; !stopWriting; sequence++) {
      attempted[writer] = sequence;
      const response = await writeVersion(http, tagUrn(writer), sequence);
      // While the writer is down, a write either waits for it (200 once it is back) or times out (504: it may still
      // apply). Either way the stream goes on; a 504 leaves that sequence number unacknowledged.
      expect([200, 504]).toContain(response.status);
      if (response.status !== 200) return;
      acknowledged[writer] = sequence;
    }
  });
  const total = () => acknowledged.reduce((sum, count) => sum + count, 0);
  await eventually(
    () => {
      expect(total()).toBeGreaterThanOrEqual(150);
    },
    { timeoutMs: 60_000 },
  );
  await strata.processes['metadata-writer']!.kill();
  const acknowledgedAtKill = total();
  await strata.restart('metadata-writer');
  await eventually(
    () => {
      expect(total()).toBeGreaterThanOrEqual(acknowledgedAtKill + 60);
    },
    { timeoutMs: 60_000 },
  );
  stopWriting = true;
  await Promise.all(streams);

  const stored = new Map<number, string[]>();
  for (let writer = 0; writer < writers; writer++) {
    const descriptions = await storedVersions(http, tagUrn(writer));
    stored.set(writer, descriptions);
    expect(descriptions.length).toBeGreaterThanOrEqual(acknowledged[writer]!);
    expect(descriptions.length).toBeLessThanOrEqual(attempted[writer]!);
    expect(descriptions).toEqual(sequenceOf(descriptions.length));
  }

  // Every stored version has its change log (duplicates are allowed: delivery is at least once).
  const log = new KafkaMessageLog({
    brokers: broker.brokers,
    clientId: 'crash-test-inspector',
    consumer: { maxWaitTimeMs: 100 },
  });
  const changeLogs = await collectTopic(log, `MetadataChangeLog_Versioned_v1.${strata.namespace}`);
  try {
    const emittedVersions = () => {
      const versions = new Map<string, Set<string>>();
      for (const record of changeLogs.records) {
        const changeLog = serde.changeLog.decode(record.value);
        if (changeLog.aspectName !== 'tagProperties' || !changeLog.entityUrn) continue;
        const seen = versions.get(changeLog.entityUrn) ?? new Set<string>();
        seen.add(changeLog.systemMetadata?.version ?? '?');
        versions.set(changeLog.entityUrn, seen);
      }
      return versions;
    };
    await eventually(
      () => {
        const versions = emittedVersions();
        for (const [writer, descriptions] of stored) {
          const expected = descriptions.map((_description, index) => String(index + 1));
          expect([...(versions.get(tagUrn(writer)) ?? [])].sort()).toEqual(expected.sort());
        }
      },
      { timeoutMs: 30_000 },
    );
  } finally {
    await changeLogs.stop();
    await log.close();
  }
  // Its own waits allow a minute each (the writer's restart, the consumers' catch-up): the default 30 s is too short on a
  // busy machine (seen with the browser tests beside it), and a test cut short leaves its streams writing into the
  // deployment being stopped.
}, 180_000);
