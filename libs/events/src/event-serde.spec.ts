import { ValidationError, validateProposal, type ValidatedProposal } from '@strata/model';
import { testEntityRegistry, testSchemaFiles } from '@strata/model/testing';

import { createEventSerde, UndecodableRecordError } from './event-serde';
import type { MetadataChangeProposal } from './generated/records';

const serde = createEventSerde(testSchemaFiles());
const registry = testEntityRegistry();

/** A validated proposal carrying the system metadata and headers, parsed from JSON text as a client sends them. */
function validated(systemMetadataJson: string, headersJson = 'null'): ValidatedProposal {
  return validateProposal(
    registry,
    JSON.parse(`{
      "entityType": "corpuser",
      "entityUrn": "urn:li:corpuser:jdoe",
      "changeType": "UPSERT",
      "aspectName": "status",
      "aspect": {"value": "{\\"removed\\": false}", "contentType": "application/json"},
      "systemMetadata": ${systemMetadataJson},
      "headers": ${headersJson}
    }`),
  );
}

/** The proposal record the gateway publishes (`ProposalSubmitter.toRecord`). */
function proposalRecord(proposal: ValidatedProposal): MetadataChangeProposal {
  return {
    auditHeader: null,
    entityType: proposal.entity.name,
    entityUrn: proposal.urn.toString(),
    entityKeyAspect: null,
    changeType: proposal.changeType,
    aspectName: proposal.aspect.name,
    aspect: { value: Buffer.from(JSON.stringify(proposal.value), 'utf8'), contentType: 'application/json' },
    systemMetadata: proposal.systemMetadata ? serde.toSystemMetadataRecord(proposal.systemMetadata) : null,
    headers: Object.keys(proposal.headers).length > 0 ? { ...proposal.headers } : null,
  };
}

describe('toSystemMetadataRecord', () => {
  it.each([
    '{"lastObserved": 9007199254740990, "runId": "r", "properties": {"a": "b"}, "version": "3"}',
    '{"lastObserved": -4503599627370496, "pipelineName": "p", "registryName": "n", "registryVersion": "v"}',
    '{"lastObserved": 0, "unknown": {"nested": [1, 2.5]}, "schemaVersion": 1.5}',
    '{}',
  ])('given validated system metadata %s, when encoded as a proposal, then it encodes and decodes back', (json) => {
    const proposal = validated(json);
    const record = proposalRecord(proposal);
    const decoded = serde.proposal.decode(serde.proposal.encode(record));
    expect(decoded.systemMetadata).toEqual(record.systemMetadata);
  });

  it.each(['1.5', '1e300', '9007199254740991', '9007199254740993', '-4503599627370497', '-9007199254740990', '-0.5'])(
    'given lastObserved %s, when validated, then it is refused, or encodes and decodes to itself',
    (lastObserved) => {
      let proposal: ValidatedProposal;
      try {
        proposal = validated(`{"lastObserved": ${lastObserved}}`);
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as Error).message).toContain('systemMetadata.lastObserved must be an integer');
        return;
      }
      const record = proposalRecord(proposal);
      expect(serde.proposal.decode(serde.proposal.encode(record)).systemMetadata?.lastObserved).toBe(
        Number(lastObserved),
      );
    },
  );

  it('given "__proto__" and "constructor" map keys, when encoded and decoded, then both are own keys again', () => {
    const keys = '{"__proto__": "x", "constructor": "y"}';
    const record = proposalRecord(validated(`{"properties": ${keys}}`, keys));
    expect(serde.toSystemMetadataRecord(JSON.parse(`{"properties": ${keys}}`)).properties).toEqual(JSON.parse(keys));
    const decoded = serde.proposal.decode(serde.proposal.encode(record));
    expect(JSON.stringify(decoded.systemMetadata?.properties)).toBe('{"__proto__":"x","constructor":"y"}');
    expect(JSON.stringify(decoded.headers)).toBe('{"__proto__":"x","constructor":"y"}');
    expect(Object.getPrototypeOf(decoded.headers)).toBe(Object.prototype);
  });

  it('given an unknown "__proto__" field, when made a record, then no field is read from it', () => {
    const record = serde.toSystemMetadataRecord(JSON.parse('{"__proto__": {"runId": 5, "lastObserved": 1.5}}'));
    expect(record.runId).toBe('no-run-id-provided');
    expect(record.lastObserved).toBe(0);
  });
});

describe('proposal.decodeAny of a JSON proposal', () => {
  it.each([5_000, 100_000])(
    'given an aspect value nesting %d levels, when decoded, then an UndecodableRecordError names the limit',
    (depth) => {
      const nested = `${'{"a":'.repeat(depth - 1)}{"a":1}${'}'.repeat(depth - 1)}`;
      const json = `{"entityType": "corpuser", "entityUrn": "urn:li:corpuser:jdoe", "changeType": "UPSERT",
        "aspectName": "status", "aspect": {"value": {"removed": false, "deep": ${nested}}}}`;
      const decode = () => serde.proposal.decodeAny(Buffer.from(json, 'utf8'));
      expect(decode).toThrow(UndecodableRecordError);
      expect(decode).toThrow('A JSON proposal nests arrays and objects deeper than the limit of 1000 levels');
    },
  );
});
