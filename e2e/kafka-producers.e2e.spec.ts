/**
 * Kafka producers pushing proposals straight onto the log, with Strata's log on Kafka (`KAFKA_BROKERS` set): a standard
 * producer using Confluent's schema-registry client against Strata's registry, a plain JSON producer, and a producer
 * of garbage, which must not stop consumption.
 */
import { randomUUID } from 'node:crypto';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { readSchemas } from '@strata/schemas';
import { createEventSerde, type MetadataChangeProposal } from '@strata/events';
import { KafkaMessageLog } from '@strata/log';
import { eventually, proposalOf, sharedDeployment, TestHttpClient, type SharedDeployment } from '@strata/testing';
import { collectTopic } from './support/topic-collector';

const serde = createEventSerde(readSchemas());

let strata: SharedDeployment;
let http: TestHttpClient;
let producerLog: KafkaMessageLog;
let proposalTopic: string;

beforeAll(async () => {
  // The shared deployment on Kafka; the tags these tests write are named uniquely (randomUUID).
  strata = await sharedDeployment('standalone-kafka');
  http = new TestHttpClient(strata.baseUrl);
  producerLog = new KafkaMessageLog({
    brokers: strata.kafkaBrokers ?? [],
    clientId: 'external-producer',
    consumer: { maxWaitTimeMs: 100 },
  });
  proposalTopic = `MetadataChangeProposal_v1.${strata.namespace}`;
});

afterAll(async () => {
  await producerLog.close();
});

/** A tag's properties as a JSON producer sends them. */
function tagNamed(urn: string, name: string) {
  return proposalOf(urn, 'tagProperties', { name });
}

/** The same proposal in its Avro record form, as an Avro producer builds it (the form the JSON one decodes to). */
function avroRecordOf(urn: string, name: string): MetadataChangeProposal {
  return serde.proposal.decodeAny(Buffer.from(JSON.stringify(tagNamed(urn, name))));
}

async function expectTagName(urn: string, name: string): Promise<void> {
  await eventually(
    async () => {
      const response = await http.get(`/entitiesV2/${encodeURIComponent(urn)}?aspects=List(tagProperties)`);
      expect(response.json).toMatchObject({ aspects: { tagProperties: { value: { name } } } });
    },
    { timeoutMs: 20_000 },
  );
}

describe("Strata's schema registry", () => {
  it('lets a Confluent schema-registry client encode proposals that Strata applies', async () => {
    const registry = new SchemaRegistry({ host: `${strata.baseUrl}/schema-registry/api` });
    const subject = `${proposalTopic}-value`;
    const id = await registry.getLatestSchemaId(subject);
    // Registering the same schema (as a producer holding a copy of it would) returns the same id.
    const latest = await http.get(`/schema-registry/api/subjects/${subject}/versions/latest`);
    const schemaText = (latest.json as { schema: string }).schema;
    const registered = await registry.register({ type: SchemaType.AVRO, schema: schemaText }, { subject });
    expect(registered.id).toBe(id);

    const urn = `urn:li:tag:registry-${randomUUID().slice(0, 8)}`;
    const value = await registry.encode(id, avroRecordOf(urn, 'Encoded by a Confluent client'));
    await producerLog.publish([{ topic: proposalTopic, key: urn, value }]);
    await expectTagName(urn, 'Encoded by a Confluent client');
  });

  it('refuses a schema that is not Strata’s, with Confluent’s error body', async () => {
    const response = await http.post(`/schema-registry/api/subjects/${proposalTopic}-value/versions`, {
      schema: JSON.stringify({ type: 'record', name: 'Other', fields: [{ name: 'x', type: 'string' }] }),
    });
    expect(response.status).toBe(409);
    expect(response.json).toMatchObject({ error_code: 409, message: expect.stringContaining('incompatible') });
    const missing = await http.get('/schema-registry/api/subjects/NoSuchTopic-value/versions/latest');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ error_code: 40401 });
  });
});

describe('direct producers', () => {
  it('applies a plain JSON proposal produced onto the proposal topic', async () => {
    const urn = `urn:li:tag:json-${randomUUID().slice(0, 8)}`;
    const value = Buffer.from(JSON.stringify(tagNamed(urn, 'From JSON')));
    await producerLog.publish([{ topic: proposalTopic, key: urn, value }]);
    await expectTagName(urn, 'From JSON');
  });

  it('routes records it cannot decode to the failed-proposal topic and goes on consuming', async () => {
    const urn = `urn:li:tag:after-garbage-${randomUUID().slice(0, 8)}`;
    await producerLog.publish([
      { topic: proposalTopic, key: urn, value: Buffer.from([0x00, 0x00, 0x00, 0x00, 0x2a, 0x01]) },
      { topic: proposalTopic, key: urn, value: Buffer.from('definitely not a proposal') },
      { topic: proposalTopic, key: urn, value: serde.proposal.encode(avroRecordOf(urn, 'After garbage')) },
    ]);
    await expectTagName(urn, 'After garbage');

    const failed = await collectTopic(producerLog, `FailedMetadataChangeProposal_v1.${strata.namespace}`);
    try {
      await eventually(
        () => {
          const reasons = failed.records
            .filter((record) => record.key === urn)
            .map((record) => serde.failedProposal.decode(record.value).error);
          expect(reasons).toEqual([
            expect.stringMatching(/schema id 42/),
            expect.stringMatching(/neither Confluent-framed Avro/),
          ]);
        },
        { timeoutMs: 20_000 },
      );
    } finally {
      await failed.stop();
    }
  });
});
