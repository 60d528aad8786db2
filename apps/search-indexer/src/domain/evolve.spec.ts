import { testEntityRegistry } from '@strata/model/testing';
import type { EntitySpec } from '@strata/model';
import { contributionOf, edgesOf, evolve, type AspectChange } from './evolve';

const registry = testEntityRegistry();
const dataset = registry.entity('dataset') as EntitySpec;
const glossaryTerm = registry.entity('glossaryTerm') as EntitySpec;
const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';

function change(aspectName: string, value: unknown, changeType = 'UPSERT'): AspectChange {
  return { entity: dataset, urn, aspectName, changeType, value, createdAt: 5, createdBy: 'urn:li:corpuser:jdoe' };
}

describe('contributionOf', () => {
  it('takes the values at each annotated path, with the hasValues flag', () => {
    expect(contributionOf(dataset, 'globalTags', { tags: [{ tag: 'urn:li:tag:A' }, { tag: 'urn:li:tag:B' }] })).toEqual(
      {
        tags: ['urn:li:tag:A', 'urn:li:tag:B'],
        hasTags: [true],
      },
    );
    expect(contributionOf(dataset, 'globalTags', { tags: [] })).toEqual({ tags: [], hasTags: [false] });
  });

  it('indexes a map as key=value entries, and the key aspect under its field names', () => {
    const terms = contributionOf(glossaryTerm, 'glossaryTermInfo', {
      definition: 'money in',
      termSource: 'INTERNAL',
      customProperties: { owner: 'finance', tier: '1' },
    });
    expect(terms['customProperties']).toEqual(['owner=finance', 'tier=1']);
    expect(terms['definition']).toEqual(['money in']);
    expect(
      contributionOf(dataset, 'datasetKey', {
        platform: 'urn:li:dataPlatform:hive',
        name: 'db.orders',
        origin: 'PROD',
      }),
    ).toMatchObject({ platform: ['urn:li:dataPlatform:hive'], id: ['db.orders'], origin: ['PROD'] });
  });

  it('takes every item of an array field', () => {
    expect(contributionOf(dataset, 'browsePaths', { paths: ['/prod/hive', '/dev/hive/db'] })).toEqual({
      browsePaths: ['/prod/hive', '/dev/hive/db'],
    });
  });
});

describe('edgesOf', () => {
  it('keeps URNs of the entity types the annotation allows, each once, with the change’s stamp', () => {
    const edges = edgesOf(
      dataset,
      'ownership',
      {
        owners: [
          { owner: 'urn:li:corpuser:ann', type: 'DATAOWNER' },
          { owner: 'urn:li:corpGroup:finance', type: 'DATAOWNER' },
          { owner: 'urn:li:corpuser:ann', type: 'TECHNICAL_OWNER' },
          { owner: 'urn:li:tag:notAnOwner', type: 'DATAOWNER' },
        ],
      },
      { createdAt: 5, createdBy: 'urn:li:corpuser:jdoe' },
    );
    expect(edges).toEqual([
      { type: 'OwnedBy', destination: 'urn:li:corpuser:ann', createdAt: 5, createdBy: 'urn:li:corpuser:jdoe' },
      { type: 'OwnedBy', destination: 'urn:li:corpGroup:finance', createdAt: 5, createdBy: 'urn:li:corpuser:jdoe' },
    ]);
  });
});

describe('evolve', () => {
  it('replaces one aspect’s contribution and edges, leaving the others', () => {
    const tagged = evolve(undefined, change('globalTags', { tags: [{ tag: 'urn:li:tag:A' }] }));
    const owned = evolve(
      tagged.document,
      change('ownership', { owners: [{ owner: 'urn:li:corpuser:ann', type: 'DATAOWNER' }] }),
    );
    const retagged = evolve(owned.document, change('globalTags', { tags: [{ tag: 'urn:li:tag:B' }] }));

    expect(retagged.document?.aspects).toEqual({
      globalTags: { tags: ['urn:li:tag:B'], hasTags: [true] },
      ownership: { owners: ['urn:li:corpuser:ann'], hasOwners: [true], ownerTypes: [] },
    });
    expect(retagged.graph).toEqual({
      kind: 'replace',
      aspect: 'globalTags',
      edges: [{ type: 'TaggedWith', destination: 'urn:li:tag:B', createdAt: 5, createdBy: 'urn:li:corpuser:jdoe' }],
    });
  });

  it('removes an aspect’s contribution and edges when the aspect is deleted', () => {
    const tagged = evolve(undefined, change('globalTags', { tags: [{ tag: 'urn:li:tag:A' }] }));
    const deleted = evolve(tagged.document, change('globalTags', undefined, 'DELETE'));
    expect(deleted.document?.aspects).toEqual({});
    expect(deleted.graph).toEqual({ kind: 'replace', aspect: 'globalTags', edges: [] });
  });

  it('removes the document and every edge when the key aspect is deleted', () => {
    const tagged = evolve(undefined, change('globalTags', { tags: [{ tag: 'urn:li:tag:A' }] }));
    expect(evolve(tagged.document, change('datasetKey', undefined, 'DELETE'))).toEqual({
      document: null,
      graph: { kind: 'removeEntity' },
    });
  });
});
