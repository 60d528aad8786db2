import { BadRequestError, PayloadTooLargeError, StrataError, ValidationError } from './errors';
import { timeRangeOf, timeseriesRunOf, validateProposal } from './proposal-validation';
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
    expect(rejection(proposal({ entityType: 'spaceship' }))).toEqual(new ValidationError('Unknown entity: spaceship'));
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

  it.each(['RESTATE', 'MERGE', 'upsert', '__proto__', 'constructor', 'toString'])(
    'given changeType %s, when validated, then it is not supported',
    (changeType) => {
      expect(rejection(proposal({ changeType }))).toEqual(
        new ValidationError(
          `ChangeType ${changeType} not supported: expected one of UPSERT, UPDATE, CREATE, CREATE_ENTITY, DELETE, PATCH`,
        ),
      );
    },
  );

  it('given no changeType or a non-string one, when validated, then ValidationError', () => {
    expect(rejection(proposal({ changeType: undefined }))).toEqual(
      new ValidationError('Proposal field changeType is required'),
    );
    expect(rejection(proposal({ changeType: 7 }))).toEqual(
      new ValidationError(
        'ChangeType 7 not supported: expected one of UPSERT, UPDATE, CREATE, CREATE_ENTITY, DELETE, PATCH',
      ),
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

  it.each(['CREATE', 'CREATE_ENTITY', 'PATCH'])(
    'given %s of a timeseries aspect, when validated, then only UPSERT and DELETE are accepted',
    (changeType) => {
      expect(rejection(proposal({ changeType, aspectName: 'datasetProfile' }))).toEqual(
        new ValidationError(
          `ChangeType ${changeType} not supported for timeseries aspect datasetProfile: expected UPSERT (or DELETE)`,
        ),
      );
    },
  );

  it('given a DELETE of a timeseries aspect, when its time range headers are bad, then the reason', () => {
    const deleting = (headers: Record<string, string>) =>
      proposal({ changeType: 'DELETE', aspectName: 'datasetProfile', aspect: undefined, headers });
    expect(validateProposal(registry, deleting({ startTimeMillis: '10', endTimeMillis: '20' })).changeType).toBe(
      'DELETE',
    );
    expect(rejection(deleting({ startTimeMillis: 'yesterday' }))).toEqual(
      new ValidationError('Header startTimeMillis must be epoch milliseconds, got "yesterday"'),
    );
    expect(rejection(deleting({ startTimeMillis: '20', endTimeMillis: '10' }))).toEqual(
      new ValidationError('The time range ends (10) before it starts (20)'),
    );
  });

  it('given a DELETE of a timeseries aspect naming a run, when validated, then the run; an empty one is refused', () => {
    const deleting = (headers: Record<string, string>) =>
      proposal({ changeType: 'DELETE', aspectName: 'datasetProfile', aspect: undefined, headers });
    const narrowed = validateProposal(registry, deleting({ runId: 'postgres-1', endTimeMillis: '20' }));
    expect(timeseriesRunOf(narrowed.headers)).toBe('postgres-1');
    expect(timeRangeOf(narrowed.headers)).toEqual({ untilMillis: 20 });
    expect(timeseriesRunOf(validateProposal(registry, deleting({})).headers)).toBeUndefined();
    expect(rejection(deleting({ runId: '' }))).toEqual(
      new ValidationError('Header runId must name an ingestion run, got ""'),
    );
    // Run ids are compared as they are written: one of spaces names a run.
    expect(timeseriesRunOf(validateProposal(registry, deleting({ runId: ' ' })).headers)).toBe(' ');
    // Only a timeseries DELETE reads it: elsewhere it is a header like any other.
    expect(validateProposal(registry, proposal({ headers: { runId: '' } })).headers).toEqual({ runId: '' });
  });

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
    const value = { owners: [{ owner: 'urn:li:mlModel:x' }] };
    expect(rejection(proposal({ aspect: { value: JSON.stringify(value) } }))).toEqual(
      new ValidationError('Invalid format for aspect: ownership\n Cause: /owners/0/type: required field is missing'),
    );
  });

  it('given a key aspect that differs from the URN, when validated, then the key derived from the URN, as DataHub keeps', () => {
    const key = { platform: 'urn:li:dataPlatform:hive', name: 'Other', origin: 'PROD' };
    expect(
      validateProposal(registry, proposal({ aspectName: 'datasetKey', aspect: { value: JSON.stringify(key) } })).value,
    ).toEqual({
      platform: 'urn:li:dataPlatform:hive',
      name: 'SampleHiveDataset',
      origin: 'PROD',
    });
    expect(
      rejection(proposal({ aspectName: 'datasetKey', aspect: { value: JSON.stringify({ name: 3 }) } })).message,
    ).toMatch(/^Invalid format for aspect: datasetKey/);
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
      new ValidationError(
        'systemMetadata.lastObserved must be an integer from -4503599627370496 to 9007199254740990 (an Avro long), got "now"',
      ),
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

describe('validateProposal: system metadata an Avro record can carry', () => {
  // The Avro encoder carries longs from -(2 ** 52) to 2 ** 53 - 2 exactly (beyond, it refuses them or, below -(2 ** 52),
  // flips their sign); 2 ** 53 + 1 is not even a double (it reads as 2 ** 53).
  it.each([1.5, 1e300, 2 ** 53 + 1, -0.5, 2 ** 53 - 1, -(2 ** 52) - 1, -(2 ** 53 - 2)])(
    'given lastObserved %p, which no Avro long holds, when validated, then a ValidationError names the field',
    (lastObserved) => {
      const error = rejection(proposal({ systemMetadata: { lastObserved } }));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toBe(
        `systemMetadata.lastObserved must be an integer from -4503599627370496 to 9007199254740990 (an Avro long), got number ${lastObserved}`,
      );
    },
  );

  it.each([0, -1, 1_700_000_000_000, 2 ** 53 - 2, -(2 ** 52)])(
    'given lastObserved %p, an integer an Avro long holds, when validated, then it is kept',
    (lastObserved) => {
      expect(validateProposal(registry, proposal({ systemMetadata: { lastObserved } })).systemMetadata).toEqual({
        lastObserved,
      });
    },
  );
});

describe('validateProposal: map keys that name Object.prototype members', () => {
  // JSON text, so that "__proto__" is an ordinary key (an object literal would set the prototype instead).
  const text = '{"__proto__": "x", "constructor": "y", "hasOwnProperty": "z"}';

  it('given customProperties with "__proto__" and "constructor", when validated, then both stay own keys of the value', () => {
    const result = validateProposal(
      registry,
      proposal({
        aspectName: 'datasetProperties',
        aspect: { value: `{"customProperties": ${text}}`, contentType: 'application/json' },
      }),
    );
    const customProperties = result.value?.['customProperties'] as Record<string, unknown>;
    expect(Object.keys(customProperties)).toEqual(['__proto__', 'constructor', 'hasOwnProperty']);
    expect(Object.getPrototypeOf(customProperties)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(result.value))).toEqual({ customProperties: JSON.parse(text) });
    expect(JSON.stringify(result.value)).toContain('"__proto__":"x"');
  });

  it('given them in systemMetadata.properties, headers and unknown system metadata fields, when validated, then they are kept', () => {
    const input = JSON.parse(
      `{"systemMetadata": {"properties": ${text}, "__proto__": {"runId": 5}}, "headers": ${text}}`,
    ) as Record<string, unknown>;
    const result = validateProposal(registry, proposal(input));
    expect(JSON.stringify(result.systemMetadata)).toBe(
      `{"properties":${JSON.stringify(JSON.parse(text))},"__proto__":{"runId":5}}`,
    );
    // An unknown "__proto__" field must not become the prototype: runId would be inherited, and no string.
    expect(result.systemMetadata?.['runId']).toBeUndefined();
    expect(JSON.stringify(result.headers)).toBe(JSON.stringify(JSON.parse(text)));
  });
});

describe('validateProposal: URNs too long to be read back', () => {
  const TOO_LONG = 'Error: cannot provide an URN longer than 512 bytes (when URL encoded)';

  it('given an entity URN over 512 characters URL-encoded, when validated, then DataHub’s ValidationError', () => {
    // 200 ">" are 600 characters encoded.
    const urn = `urn:li:corpuser:${'>'.repeat(200)}`;
    const error = rejection(
      proposal({
        entityType: 'corpuser',
        entityUrn: urn,
        aspectName: 'status',
        aspect: { value: '{"removed": false}' },
      }),
    );
    expect(error).toEqual(new ValidationError(TOO_LONG));
  });

  it('given a dataset URN of 512 characters encoded, when validated, then it is accepted; one more is refused', () => {
    const datasetUrn = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
    // The URN around the name encodes to 67 characters: each of its ":" "(" "," ")" is three.
    const fits = datasetUrn('n'.repeat(512 - 67));
    const status = { aspectName: 'status', aspect: { value: '{"removed": false}' } };
    expect(validateProposal(registry, proposal({ entityUrn: fits, ...status })).urn.toString()).toBe(fits);
    expect(rejection(proposal({ entityUrn: datasetUrn('n'.repeat(512 - 66)), ...status }))).toEqual(
      new ValidationError(TOO_LONG),
    );
  });
});

describe('validateProposal: nesting depth', () => {
  /** JSON text of an object nested `depth` levels deep (`{"a": {"a": … 1 …}}`), built without recursion. */
  function nested(depth: number): string {
    return `${'{"a":'.repeat(depth - 1)}{"a":1}${'}'.repeat(depth - 1)}`;
  }
  const deepValue = (depth: number) => `{"removed": false, "unknownField": ${nested(depth)}}`;
  const status = (value: unknown) => proposal({ aspectName: 'status', aspect: { value } });
  const TOO_DEEP = 'nests arrays and objects deeper than the limit of 1000 levels';

  it.each([5_000, 100_000])(
    'given an aspect value as JSON text nesting %d levels, when validated, then a ValidationError names the limit',
    (depth) => {
      const error = rejection(status(deepValue(depth)));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toContain(TOO_DEEP);
    },
  );

  it.each([5_000, 100_000])(
    'given an aspect value as an object nesting %d levels, when validated, then a ValidationError names the limit',
    (depth) => {
      const error = rejection(status(JSON.parse(deepValue(depth))));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toContain(TOO_DEEP);
    },
  );

  it.each([5_000, 100_000])(
    'given system metadata nesting %d levels, when validated, then a ValidationError names the limit',
    (depth) => {
      const error = rejection(proposal({ systemMetadata: JSON.parse(`{"custom": ${nested(depth)}}`) }));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toContain(TOO_DEEP);
    },
  );

  it('given an aspect value as text nesting exactly 1000 levels, when validated, then it is accepted', () => {
    // The value object itself is the first level.
    expect(validateProposal(registry, status(deepValue(999))).value).toEqual({ removed: false });
    expect(rejection(status(deepValue(1000))).message).toContain(TOO_DEEP);
  });

  it('given brackets inside strings, when the depth is measured, then they do not count', () => {
    const value = `{"removed": false, "unknownField": ${JSON.stringify('{['.repeat(5_000))}, "other": "\\\\\\"["}`;
    expect(validateProposal(registry, status(value)).value).toEqual({ removed: false });
  });
});

describe('validateProposal: metadata tests', () => {
  const test = (definition: unknown) =>
    proposal({
      entityType: 'test',
      entityUrn: 'urn:li:test:ownership-required',
      aspectName: 'testInfo',
      aspect: {
        value: JSON.stringify({
          name: 'Ownership required',
          category: 'Governance',
          definition: { type: 'JSON', json: typeof definition === 'string' ? definition : JSON.stringify(definition) },
        }),
        contentType: 'application/json',
      },
    });

  it('given a definition that holds, when validated, then the test is accepted', () => {
    const valid = test({
      on: { types: ['dataset'] },
      rules: { property: 'ownership.owners.owner', operator: 'exists' },
    });
    expect(validateProposal(registry, valid).aspect.name).toBe('testInfo');
  });

  it("given DataHub's sample test with an empty definition, or one without on, when validated, then it is accepted", () => {
    for (const definition of ['{}', { rules: { property: 'ownership.owners.owner', operator: 'exists' } }]) {
      expect(validateProposal(registry, test(definition)).value).toMatchObject({ definition: { type: 'JSON' } });
    }
  });

  it.each([
    ['{"on":', /^Invalid test definition: definition: not JSON/],
    [{ on: {} }, /^Invalid test definition: definition\.on\.types: must be a non-empty list/],
    [
      { on: { types: ['spaceship'] } },
      /^Invalid test definition: definition\.on\.types\[0\]: unknown entity type spaceship/,
    ],
    [
      { on: { types: ['dataset'] }, rules: { property: 'ownership.nobody', operator: 'exists' } },
      /^Invalid test definition: definition\.rules\.property: ownership has no field nobody/,
    ],
  ])('given %j, when validated, then it is refused as invalid with the path of the fault', (definition, message) => {
    const error = rejection(test(definition));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toMatch(message);
  });
});
