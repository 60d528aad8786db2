import { testSchemaFiles } from '@strata/model/testing';

import { avroJsonOf } from './avro-json';
import { createEventSerde } from './event-serde';
import type { MetadataChangeLog, PlatformEvent } from './generated/records';

const serde = createEventSerde(testSchemaFiles());

describe('avroJsonOf', () => {
  it('writes a platform event as Avro’s JSON encoder does: its payload’s bytes as a string', () => {
    const event: PlatformEvent = {
      header: { timestampMillis: 1_700_000_000_000 },
      name: 'entityChangeEvent',
      payload: {
        value: Buffer.from('{"entityUrn":"urn:li:tag:t","op":"ADD"}', 'utf8'),
        contentType: 'application/json',
      },
    };
    const decoded = serde.platformEvent.decode(serde.platformEvent.encode(event));
    expect(JSON.stringify(avroJsonOf(serde.platformEvent.type, decoded))).toBe(
      '{"header":{"timestampMillis":1700000000000},"name":"entityChangeEvent","payload":{"value":"{\\"entityUrn\\":\\"urn:li:tag:t\\",\\"op\\":\\"ADD\\"}","contentType":"application/json"}}',
    );
  });

  it('wraps the value of a union in its branch’s name, leaves null as null, and writes bytes as code points 0–255', () => {
    const log: MetadataChangeLog = {
      auditHeader: null,
      entityType: 'tag',
      entityUrn: 'urn:li:tag:t',
      entityKeyAspect: null,
      changeType: 'UPSERT',
      aspectName: 'tagProperties',
      aspect: { value: Buffer.from('{"name":"é"}', 'utf8'), contentType: 'application/json' },
      systemMetadata: null,
      headers: { 'strata-request-id': 'r' },
      previousAspectValue: null,
      previousSystemMetadata: null,
      created: { time: 5, actor: 'urn:li:corpuser:datahub', impersonator: null, message: null },
    };
    const json = avroJsonOf(serde.changeLog.type, serde.changeLog.decode(serde.changeLog.encode(log))) as Record<
      string,
      unknown
    >;
    expect(json).toMatchObject({
      auditHeader: null,
      entityType: 'tag',
      entityUrn: { string: 'urn:li:tag:t' },
      changeType: 'UPSERT',
      aspectName: { string: 'tagProperties' },
      aspect: {
        'com.linkedin.pegasus2avro.mxe.GenericAspect': {
          value: Buffer.from('{"name":"é"}', 'utf8').toString('latin1'),
          contentType: 'application/json',
        },
      },
      headers: { map: { 'strata-request-id': 'r' } },
      created: { 'com.linkedin.pegasus2avro.common.AuditStamp': { time: 5, actor: 'urn:li:corpuser:datahub' } },
    });
    // Every field, in the schema's order.
    const schema = serde.changeLog.type.schema() as { fields: { name: string }[] };
    expect(Object.keys(json)).toEqual(schema.fields.map((field) => field.name));
  });
});
