import { DEFAULT_MAX_ASPECT_BYTES, PayloadTooLargeError, ValidationError, type ValidatedProposal } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';

import { proposalsFromSnapshot } from './snapshot-proposals';

const registry = testEntityRegistry();
const datasetUrn = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
const termUrn = 'urn:li:glossaryTerm:instruments.Account';

function snapshotOf(snapshotName: string, snapshot: unknown): unknown {
  return { value: { [snapshotName]: snapshot } };
}

function proposalsOf(entity: unknown, systemMetadata?: unknown): ValidatedProposal[] {
  return proposalsFromSnapshot(registry, entity, systemMetadata, DEFAULT_MAX_ASPECT_BYTES);
}

/** The ValidationError `proposalsOf` throws (fails the test when it returns instead). */
function rejectionOf(entity: unknown): ValidationError {
  try {
    proposalsOf(entity);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected the snapshot to be rejected');
}

function summary(proposals: readonly ValidatedProposal[]): unknown[] {
  return proposals.map((proposal) => ({
    entity: proposal.entity.name,
    urn: proposal.urn.toString(),
    changeType: proposal.changeType,
    aspect: proposal.aspect.name,
    value: proposal.value,
  }));
}

describe('proposalsFromSnapshot', () => {
  it('given a dataset snapshot with two aspects, when converted, then there is one UPSERT proposal per aspect, in snapshot order', () => {
    const proposals = proposalsOf(
      snapshotOf('com.linkedin.metadata.snapshot.DatasetSnapshot', {
        urn: datasetUrn,
        aspects: [
          { 'com.linkedin.common.Status': { removed: true } },
          { 'com.linkedin.dataset.DatasetProperties': { description: 'orders', customProperties: {} } },
        ],
      }),
    );

    expect(summary(proposals)).toEqual([
      { entity: 'dataset', urn: datasetUrn, changeType: 'UPSERT', aspect: 'status', value: { removed: true } },
      {
        entity: 'dataset',
        urn: datasetUrn,
        changeType: 'UPSERT',
        aspect: 'datasetProperties',
        value: { description: 'orders', customProperties: {} },
      },
    ]);
  });

  it('given snapshot and aspect record names in the pegasus2avro namespace (Kafka JSON producers), when converted, then they are accepted', () => {
    const proposals = proposalsOf(
      snapshotOf('com.linkedin.pegasus2avro.metadata.snapshot.DatasetSnapshot', {
        urn: datasetUrn,
        aspects: [{ 'com.linkedin.pegasus2avro.common.Status': { removed: false } }],
      }),
    );

    expect(summary(proposals)).toEqual([
      { entity: 'dataset', urn: datasetUrn, changeType: 'UPSERT', aspect: 'status', value: { removed: false } },
    ]);
  });

  it('given aspect values as DataHub’s Python classes write them to files, when converted, then they read as the REST shapes', () => {
    const schema = {
      schemaName: 'orders',
      platform: 'urn:li:dataPlatform:hive',
      version: 0,
      hash: '',
      platformSchema: { 'com.linkedin.pegasus2avro.schema.MySqlDDL': { tableSchema: '' } },
      fields: [
        {
          fieldPath: 'id',
          nativeDataType: 'int',
          type: { type: { 'com.linkedin.pegasus2avro.schema.NumberType': {} } },
        },
      ],
    };
    const cost = { costType: 'ORG_COST_TYPE', cost: { fieldDiscriminator: 'costCode', costCode: 'c-1', costId: null } };
    const proposals = proposalsOf(
      snapshotOf('com.linkedin.pegasus2avro.metadata.snapshot.MLModelSnapshot', {
        urn: 'urn:li:mlModel:(urn:li:dataPlatform:sagemaker,churn,PROD)',
        aspects: [{ 'com.linkedin.pegasus2avro.common.Cost': cost }],
      }),
    );
    expect(proposals.map((proposal) => proposal.value)).toEqual([
      { costType: 'ORG_COST_TYPE', cost: { costCode: 'c-1' } },
    ]);
    const dataset = proposalsOf(
      snapshotOf('com.linkedin.pegasus2avro.metadata.snapshot.DatasetSnapshot', {
        urn: datasetUrn,
        aspects: [{ 'com.linkedin.pegasus2avro.schema.SchemaMetadata': schema }],
      }),
    );
    expect(dataset[0]?.value).toMatchObject({
      platformSchema: { 'com.linkedin.schema.MySqlDDL': { tableSchema: '' } },
      fields: [{ type: { type: { 'com.linkedin.schema.NumberType': {} } } }],
    });
  });

  it('given a glossary-term snapshot whose aspect is a direct member named after it, when converted, then it is accepted', () => {
    const proposals = proposalsOf(
      snapshotOf('com.linkedin.metadata.snapshot.GlossaryTermSnapshot', {
        urn: termUrn,
        glossaryTermInfo: { definition: 'A customer account', termSource: 'INTERNAL' },
      }),
    );

    expect(proposals).toHaveLength(1);
    expect(proposals[0]?.entity.name).toBe('glossaryTerm');
    expect(proposals[0]?.aspect.name).toBe('glossaryTermInfo');
    expect(proposals[0]?.value).toMatchObject({ definition: 'A customer account', termSource: 'INTERNAL' });
  });

  it.each([
    ['an empty aspects list', { urn: datasetUrn, aspects: [] }],
    ['no aspects at all', { urn: datasetUrn }],
  ])(
    'given a snapshot with %s, when converted, then one proposal writes the key aspect (creating the entity)',
    (_case, snapshot) => {
      const proposals = proposalsOf(snapshotOf('com.linkedin.metadata.snapshot.DatasetSnapshot', snapshot));

      expect(summary(proposals)).toEqual([
        {
          entity: 'dataset',
          urn: datasetUrn,
          changeType: 'UPSERT',
          aspect: 'datasetKey',
          value: { platform: 'urn:li:dataPlatform:hive', name: 'db.orders', origin: 'PROD' },
        },
      ]);
    },
  );

  it('given two invalid aspects, when converted, then one ValidationError names both problems and no proposal is returned', () => {
    const error = rejectionOf(
      snapshotOf('com.linkedin.metadata.snapshot.DatasetSnapshot', {
        urn: datasetUrn,
        aspects: [
          { 'com.linkedin.common.Status': { removed: 'yes' } },
          { 'com.linkedin.common.Status': { removed: false } },
          { 'com.linkedin.dataset.DatasetProperties': { description: 42 } },
        ],
      }),
    );

    expect(error.message).toContain('Invalid format for aspect: status');
    expect(error.message).toContain('Invalid format for aspect: datasetProperties');
    expect(error.message.split('\n').filter((line) => line.startsWith('Invalid format for aspect'))).toHaveLength(2);
  });

  it('given system metadata, when converted, then every proposal carries it', () => {
    const systemMetadata = { runId: 'run-9', lastObserved: 1234, pipelineName: 'nightly' };
    const proposals = proposalsOf(
      snapshotOf('com.linkedin.metadata.snapshot.DatasetSnapshot', {
        urn: datasetUrn,
        aspects: [
          { 'com.linkedin.common.Status': { removed: true } },
          { 'com.linkedin.common.Status': { removed: false } },
        ],
      }),
      systemMetadata,
    );

    expect(proposals.map((proposal) => proposal.systemMetadata)).toEqual([systemMetadata, systemMetadata]);
  });

  it.each([null, undefined])(
    'given system metadata %p, when converted, then proposals carry none',
    (systemMetadata) => {
      const proposals = proposalsOf(
        snapshotOf('com.linkedin.metadata.snapshot.DatasetSnapshot', { urn: datasetUrn }),
        systemMetadata,
      );

      expect(proposals[0]?.systemMetadata).toBeUndefined();
    },
  );

  it('given an aspect over the size limit, when converted, then the PayloadTooLargeError is not folded into a validation error', () => {
    const entity = snapshotOf('com.linkedin.metadata.snapshot.DatasetSnapshot', {
      urn: datasetUrn,
      aspects: [{ 'com.linkedin.dataset.DatasetProperties': { description: 'x'.repeat(200) } }],
    });

    expect(() => proposalsFromSnapshot(registry, entity, undefined, 100)).toThrow(PayloadTooLargeError);
  });

  describe('rejections with a clear message', () => {
    it.each([
      [
        'an unknown snapshot type',
        snapshotOf('com.linkedin.metadata.snapshot.NoSuchSnapshot', { urn: datasetUrn }),
        /Unknown snapshot type: com\.linkedin\.metadata\.snapshot\.NoSuchSnapshot/,
      ],
      [
        'an unknown aspect record',
        snapshotOf('com.linkedin.metadata.snapshot.DatasetSnapshot', {
          urn: datasetUrn,
          aspects: [{ 'com.linkedin.common.NoSuchAspect': {} }],
        }),
        /Unknown aspect com\.linkedin\.common\.NoSuchAspect for entity dataset/,
      ],
      [
        'an unknown direct member',
        snapshotOf('com.linkedin.metadata.snapshot.GlossaryTermSnapshot', { urn: termUrn, noSuchAspect: {} }),
        /Unknown member noSuchAspect of com\.linkedin\.metadata\.snapshot\.GlossaryTermSnapshot/,
      ],
      [
        'a missing urn',
        snapshotOf('com.linkedin.metadata.snapshot.DatasetSnapshot', { aspects: [] }),
        /DatasetSnapshot\.urn is required and must be a string/,
      ],
      [
        'a urn that is not a string',
        snapshotOf('com.linkedin.metadata.snapshot.DatasetSnapshot', { urn: 7 }),
        /urn is required and must be a string/,
      ],
      ['an entity that is not an object', 'dataset', /^entity must be a JSON object$/],
      ['a null entity', null, /^entity must be a JSON object$/],
      ['an entity.value that is an array', { value: [] }, /^entity\.value must be a JSON object$/],
      ['an entity without value', {}, /^entity\.value must be a JSON object$/],
      ['no snapshot in entity.value', { value: {} }, /exactly one snapshot, found none/],
      [
        'two snapshots in entity.value',
        {
          value: {
            'com.linkedin.metadata.snapshot.DatasetSnapshot': {},
            'com.linkedin.metadata.snapshot.ChartSnapshot': {},
          },
        },
        /exactly one snapshot, found com\.linkedin\.metadata\.snapshot\.DatasetSnapshot, com\.linkedin\.metadata\.snapshot\.ChartSnapshot/,
      ],
      [
        'a snapshot that is not an object',
        snapshotOf('com.linkedin.metadata.snapshot.DatasetSnapshot', 'x'),
        /DatasetSnapshot must be a JSON object/,
      ],
      [
        'aspects that are not an array',
        snapshotOf('com.linkedin.metadata.snapshot.DatasetSnapshot', { urn: datasetUrn, aspects: {} }),
        /DatasetSnapshot\.aspects must be an array/,
      ],
      [
        'an aspect member that is not an object',
        snapshotOf('com.linkedin.metadata.snapshot.DatasetSnapshot', { urn: datasetUrn, aspects: ['status'] }),
        /DatasetSnapshot\.aspects\[0\] must be a JSON object/,
      ],
      [
        'an aspect member with two records',
        snapshotOf('com.linkedin.metadata.snapshot.DatasetSnapshot', {
          urn: datasetUrn,
          aspects: [{ 'com.linkedin.common.Status': {}, 'com.linkedin.dataset.DatasetProperties': {} }],
        }),
        /aspects\[0\] must hold exactly one aspect keyed by its record name/,
      ],
      [
        'a urn of another entity type',
        snapshotOf('com.linkedin.metadata.snapshot.DatasetSnapshot', { urn: 'urn:li:corpuser:jdoe' }),
        /corpuser != dataset/,
      ],
    ])('given %s, when converted, then a ValidationError says so', (_case, entity, message) => {
      expect(rejectionOf(entity).message).toMatch(message);
    });
  });
});

describe('proposalsFromSnapshot: hostile input', () => {
  /** A dataset snapshot whose status aspect holds an unknown field nesting `depth` levels, parsed from JSON text. */
  function deepSnapshot(depth: number): unknown {
    const nested = `${'{"a":'.repeat(depth - 1)}{"a":1}${'}'.repeat(depth - 1)}`;
    return JSON.parse(
      `{"value": {"com.linkedin.metadata.snapshot.DatasetSnapshot": {"urn": "${datasetUrn}",
        "aspects": [{"com.linkedin.common.Status": {"removed": true, "unknownField": ${nested}}}]}}}`,
    );
  }

  it.each([5_000, 100_000])(
    'given an aspect value nesting %d levels, when converted, then a ValidationError names the limit',
    (depth) => {
      const error = rejectionOf(deepSnapshot(depth));
      expect(error.message).toContain('deeper than the limit of 1000 levels');
    },
  );

  it('given deep system metadata, when converted, then a ValidationError names the limit', () => {
    const systemMetadata = JSON.parse(`{"custom": ${'['.repeat(5_000)}${']'.repeat(5_000)}}`) as unknown;
    expect(() =>
      proposalsOf(snapshotOf('com.linkedin.metadata.snapshot.DatasetSnapshot', { urn: datasetUrn }), systemMetadata),
    ).toThrow('deeper than the limit of 1000 levels');
  });

  it('given a URN over 512 characters URL-encoded, when converted, then DataHub’s message', () => {
    const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,${'t'.repeat(500)},PROD)`;
    for (const snapshot of [{ urn }, { urn, aspects: [{ 'com.linkedin.common.Status': { removed: false } }] }]) {
      expect(rejectionOf(snapshotOf('com.linkedin.metadata.snapshot.DatasetSnapshot', snapshot)).message).toBe(
        'Error: cannot provide an URN longer than 512 bytes (when URL encoded)',
      );
    }
  });
});
