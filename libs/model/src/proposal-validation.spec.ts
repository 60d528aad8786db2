import { BadRequestError, PayloadTooLargeError, StrataError, ValidationError } from './errors';
import { validateProposal } from './proposal-validation';
import { testEntityRegistry } from './testing';
import type { Ownership } from './generated/aspects';
import { InvalidUrnError } from './urn';

const registry = testEntityRegistry();
const DATASET_URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';
const OWNERSHIP: Ownership = {
  owners: [{ owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER' }],
  lastModified: { time: 0, actor: 'urn:li:corpuser:jdoe' },
};

/** A proposal as the Python emitter sends it to /aspects?action=ingestProposal. */
function proposal(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    entityType: 'dataset',
    entityUrn: DATASET_URN,
    changeType: 'UPSERT',
    aspectName: 'ownership',
    aspect: { value: JSON.stringify(OWNERSHIP), contentType: 'application/json' },
    ...overrides,
  };
}

function rejection(input: unknown, options?: { maxAspectBytes?: number }): Error {
  try {
    validateProposal(registry, input, options);
  } catch (error) {
    if (error instanceof Error) return error;
    throw error;
  }
  throw new Error('expected the proposal to be rejected');
}

describe('validateProposal: accepted proposals', () => {
  it('given a well-formed UPSERT, when validated, then entity, URN, aspect and the parsed value come back', () => {
    const result = validateProposal(
      registry,
      proposal({ systemMetadata: { lastObserved: 1, runId: 'r' }, headers: { 'X-DataHub-Sync-Index-Update': 'true' } }),
    );
    expect(result.entity.name).toBe('dataset');
    expect(result.urn.toString()).toBe(DATASET_URN);
    expect(result.changeType).toBe('UPSERT');
    expect(result.aspect.name).toBe('ownership');
    expect(result.value).toEqual(OWNERSHIP);
    expect(result.systemMetadata).toEqual({ lastObserved: 1, runId: 'r' });
    expect(result.headers).toEqual({ 'X-DataHub-Sync-Index-Update': 'true' });
  });

  it('given UPDATE, when validated, then it is normalized to UPSERT', () => {
    expect(validateProposal(registry, proposal({ changeType: 'UPDATE' })).changeType).toBe('UPSERT');
  });

  it.each(['CREATE', 'CREATE_ENTITY'])('given %s, when validated, then it is kept', (changeType) => {
    expect(validateProposal(registry, proposal({ changeType })).changeType).toBe(changeType);
  });

  it('given DELETE without an aspect, when validated, then the value is undefined', () => {
    const result = validateProposal(registry, proposal({ changeType: 'DELETE', aspect: undefined }));
    expect(result.changeType).toBe('DELETE');
    expect(result.value).toBeUndefined();
  });

  it('given an aspect value as an already-parsed object, when validated, then it is accepted', () => {
    expect(validateProposal(registry, proposal({ aspect: { value: OWNERSHIP } })).value).toEqual(OWNERSHIP);
  });

  it('given unknown fields and null optional fields in the value, when validated, then they are dropped', () => {
    const value = { ...OWNERSHIP, ownerTypes: null, surprise: 1 };
    expect(validateProposal(registry, proposal({ aspect: { value: JSON.stringify(value) } })).value).toEqual(OWNERSHIP);
  });

  it('given a content type with parameters, when validated, then application/json is recognized', () => {
    const aspect = { value: JSON.stringify(OWNERSHIP), contentType: 'application/json; charset=utf-8' };
    expect(validateProposal(registry, proposal({ aspect })).value).toEqual(OWNERSHIP);
  });

  it('given the key aspect equal to the key the URN stands for, when validated, then it is accepted', () => {
    const key = { platform: 'urn:li:dataPlatform:hive', name: 'SampleHiveDataset', origin: 'PROD' };
    const result = validateProposal(
      registry,
      proposal({ aspectName: 'datasetKey', aspect: { value: JSON.stringify(key) } }),
    );
    expect(result.aspect.isKey).toBe(true);
    expect(result.value).toEqual(key);
  });

  it('given a timeseries aspect with UPSERT, when validated, then it is accepted', () => {
    const profile = { timestampMillis: 1_700_000_000_000, rowCount: 10 };
    const result = validateProposal(
      registry,
      proposal({ aspectName: 'datasetProfile', aspect: { value: JSON.stringify(profile) } }),
    );
    expect(result.aspect.kind).toBe('timeseries');
    expect(result.value).toEqual(profile);
  });

  it('given system metadata with null and unknown fields, when validated, then nulls are dropped and the rest kept', () => {
    const systemMetadata = { lastObserved: 5, runId: null, properties: { clientId: 'x' }, custom: true };
    expect(validateProposal(registry, proposal({ systemMetadata })).systemMetadata).toEqual({
      lastObserved: 5,
      properties: { clientId: 'x' },
      custom: true,
    });
    expect(
      validateProposal(registry, proposal({ systemMetadata: null, headers: null })).systemMetadata,
    ).toBeUndefined();
  });
});

describe('validateProposal: rejected proposals, with DataHub’s texts', () => {
  it.each([null, [], 'text', 42])('given %j instead of an object, when validated, then BadRequestError', (input) => {
    expect(rejection(input)).toBeInstanceOf(BadRequestError);
  });

  it('given no entityType, when validated, then it is required', () => {
    expect(rejection(proposal({ entityType: undefined }))).toEqual(
      new ValidationError('Proposal field entityType is required'),
    );
  });

  it('given an unknown entity type, when validated, then "Unknown entity"', () => {
    expect(rejection(proposal({ entityType: 'mlModel' }))).toEqual(new ValidationError('Unknown entity: mlModel'));
  });

  it('given no entityUrn, when validated, then it is required', () => {
    expect(rejection(proposal({ entityUrn: undefined }))).toEqual(
      new ValidationError('Proposal field entityUrn is required'),
    );
  });

  it('given an entityUrn that does not parse, when validated, then InvalidUrnError', () => {
    const error = rejection(proposal({ entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD' }));
    expect(error).toBeInstanceOf(InvalidUrnError);
    expect(error.message).toBe(
      'Invalid URN "urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD": unbalanced parentheses: missing ")"',
    );
  });

  it('given a URN of another entity type, when validated, then DataHub’s mismatch text', () => {
    expect(rejection(proposal({ entityUrn: 'urn:li:chart:(looker,baz1)' }))).toEqual(
      new ValidationError('URN entity type does not match MCP entity type. chart != dataset'),
    );
  });

  it('given a URN that does not fit the entity key, when validated, then InvalidUrnError', () => {
    const error = rejection(proposal({ entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,t,PRODUCTION)' }));
    expect(error).toBeInstanceOf(InvalidUrnError);
    expect(error.message).toMatch(/origin: "PRODUCTION" is not one of/);
  });

  it.each(['PATCH', 'RESTATE', 'MERGE', 'upsert'])(
    'given changeType %s, when validated, then it is not supported',
    (changeType) => {
      expect(rejection(proposal({ changeType }))).toEqual(
        new ValidationError(
          `ChangeType ${changeType} not supported: expected one of UPSERT, UPDATE, CREATE, CREATE_ENTITY, DELETE`,
        ),
      );
    },
  );

  it('given no changeType or a non-string one, when validated, then ValidationError', () => {
    expect(rejection(proposal({ changeType: undefined }))).toEqual(
      new ValidationError('Proposal field changeType is required'),
    );
    expect(rejection(proposal({ changeType: 7 }))).toEqual(
      new ValidationError('ChangeType 7 not supported: expected one of UPSERT, UPDATE, CREATE, CREATE_ENTITY, DELETE'),
    );
  });

  it('given no aspectName, when validated, then DataHub’s text', () => {
    expect(rejection(proposal({ aspectName: undefined }))).toEqual(
      new ValidationError('Aspect name is required for create and update operations'),
    );
    expect(rejection(proposal({ aspectName: undefined, changeType: 'DELETE' }))).toEqual(
      new ValidationError('Aspect name is required for delete operations'),
    );
  });

  it('given an aspect the entity does not have, when validated, then "Unknown aspect"', () => {
    expect(rejection(proposal({ aspectName: 'chartInfo' }))).toEqual(
      new ValidationError('Unknown aspect chartInfo for entity dataset'),
    );
  });

  it.each(['CREATE', 'DELETE', 'CREATE_ENTITY'])(
    'given %s of a timeseries aspect, when validated, then only UPSERT is accepted',
    (changeType) => {
      expect(rejection(proposal({ changeType, aspectName: 'datasetProfile' }))).toEqual(
        new ValidationError(
          `ChangeType ${changeType} not supported for timeseries aspect datasetProfile: expected UPSERT`,
        ),
      );
    },
  );

  it('given no aspect or no value for an UPSERT, when validated, then ValidationError', () => {
    expect(rejection(proposal({ aspect: undefined }))).toEqual(
      new ValidationError('Proposal field aspect is required for create and update operations (aspect ownership)'),
    );
    expect(rejection(proposal({ aspect: { contentType: 'application/json' } }))).toEqual(
      new ValidationError('Proposal field aspect.value is required for aspect ownership'),
    );
    expect(rejection(proposal({ aspect: 'text' }))).toBeInstanceOf(ValidationError);
  });

  it('given a content type other than JSON, when validated, then ValidationError', () => {
    expect(rejection(proposal({ aspect: { value: '{}', contentType: 'application/xml' } }))).toEqual(
      new ValidationError(
        'Unsupported content type "application/xml" for aspect ownership: only application/json is supported',
      ),
    );
  });

  it('given a value that is not JSON, when validated, then "Could not deserialize" with the first 200 characters', () => {
    const value = `{"owners": ${'x'.repeat(300)}`;
    const parserMessage = (() => {
      try {
        JSON.parse(value);
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    })();
    expect(rejection(proposal({ aspect: { value } }))).toEqual(
      new ValidationError(`Could not deserialize ${value.slice(0, 200)} for aspect ownership: ${parserMessage}`),
    );
  });

  it('given JSON that is not an object, when validated, then "Could not deserialize"', () => {
    expect(rejection(proposal({ aspect: { value: '[1]' } }))).toEqual(
      new ValidationError('Could not deserialize [1] for aspect ownership: expected a JSON object'),
    );
  });

  it('given a value over the size limit, when validated, then PayloadTooLargeError with the sizes', () => {
    const error = rejection(proposal(), { maxAspectBytes: 10 });
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error.message).toBe(`Aspect ownership is ${JSON.stringify(OWNERSHIP).length} bytes, over the limit of 10`);
    const objectError = rejection(proposal({ aspect: { value: OWNERSHIP } }), { maxAspectBytes: 10 });
    expect(objectError).toBeInstanceOf(PayloadTooLargeError);
  });

  it('given a value just over the default 16 MB limit, when validated, then PayloadTooLargeError', () => {
    const value = `{"description":"${'é'.repeat(8_000_000)}"}`;
    const error = rejection(proposal({ aspectName: 'datasetProperties', aspect: { value } }));
    expect(error).toEqual(
      new PayloadTooLargeError('Aspect datasetProperties is 16000018 bytes, over the limit of 16000000'),
    );
  });

  it('given a value that fails its schema, when validated, then "Invalid format for aspect" with the cause', () => {
    const value = { owners: [{ owner: 'urn:li:mlModel:x', type: 'DATAOWNER' }] };
    expect(rejection(proposal({ aspect: { value: JSON.stringify(value) } }))).toEqual(
      new ValidationError(
        'Invalid format for aspect: ownership\n Cause: /owners/0/owner: "urn:li:mlModel:x" is not a corpuser or corpGroup URN',
      ),
    );
  });

  it('given a key aspect that differs from the URN, when validated, then ValidationError', () => {
    const key = { platform: 'urn:li:dataPlatform:hive', name: 'Other', origin: 'PROD' };
    expect(rejection(proposal({ aspectName: 'datasetKey', aspect: { value: JSON.stringify(key) } }))).toEqual(
      new ValidationError(
        'Key aspect datasetKey does not match the entity URN: expected {"platform":"urn:li:dataPlatform:hive","name":"SampleHiveDataset","origin":"PROD"}, got {"platform":"urn:li:dataPlatform:hive","name":"Other","origin":"PROD"}',
      ),
    );
  });

  it('given a timeseries value without timestampMillis, when validated, then DataHub’s text', () => {
    expect(rejection(proposal({ aspectName: 'datasetProfile', aspect: { value: '{"rowCount": 1}' } }))).toEqual(
      new ValidationError('Input timeseries aspect does not contain a timestampMillis field'),
    );
  });

  it('given mistyped system metadata or headers, when validated, then ValidationError', () => {
    expect(rejection(proposal({ systemMetadata: 'x' }))).toEqual(
      new ValidationError('Proposal field systemMetadata must be an object, got "x"'),
    );
    expect(rejection(proposal({ systemMetadata: { lastObserved: 'now' } }))).toEqual(
      new ValidationError('systemMetadata.lastObserved must be a number, got "now"'),
    );
    expect(rejection(proposal({ systemMetadata: { runId: 1 } }))).toEqual(
      new ValidationError('systemMetadata.runId must be a string, got number 1'),
    );
    expect(rejection(proposal({ systemMetadata: { properties: { a: 1 } } }))).toEqual(
      new ValidationError('systemMetadata.properties.a must be a string, got number 1'),
    );
    expect(rejection(proposal({ headers: { 'If-Version-Match': 3 } }))).toEqual(
      new ValidationError('headers.If-Version-Match must be a string, got number 3'),
    );
    expect(rejection(proposal({ headers: ['a'] }))).toEqual(
      new ValidationError('Proposal field headers must be an object of strings, got an array'),
    );
  });

  it.each([
    { entityType: 5 },
    { entityUrn: 5 },
    { entityUrn: {} },
    { aspectName: ['ownership'] },
    { aspect: [] },
    { aspect: { value: 5 } },
    { aspect: { value: true, contentType: 5 } },
    { aspect: { value: 'null' } },
    { aspect: { value: '{"owners": null}' } },
    { aspect: { value: '{"owners": [null, 1, "x"]}' } },
    { systemMetadata: [] },
    { systemMetadata: { properties: 'x' } },
  ])('given the malformed field %j, when validated, then a typed error, never a TypeError', (overrides) => {
    const error = rejection(proposal(overrides));
    expect(error).toBeInstanceOf(StrataError);
  });
});
