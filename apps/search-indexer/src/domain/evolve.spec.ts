import { testEntityRegistry } from '@strata/model/testing';
import type { EntitySpec } from '@strata/model';
import type { SearchDocument } from '@strata/indices';
import { projectionSpecification } from '@strata/testing/specifications';
import { contributionOf, edgesOf, evolveDocument, graphChangeOf, type AspectChange } from './evolve';

const registry = testEntityRegistry();
const dataset = registry.entity('dataset') as EntitySpec;
const glossaryTerm = registry.entity('glossaryTerm') as EntitySpec;
const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';

function change(aspectName: string, value: unknown, changeType = 'UPSERT'): AspectChange {
  return { entity: dataset, urn, aspectName, changeType, value, createdAt: 5, createdBy: 'urn:li:corpuser:jdoe' };
}

/** The search fields of a tag's attribution (who applied it, when, from where), empty when no tag carries one. */
const noAttribution = { tagAttributionActors: [], tagAttributionDates: [], tagAttributionSources: [] };

describe('contributionOf', () => {
  it('takes the values at each annotated path, with the hasValues flag', () => {
    expect(contributionOf(dataset, 'globalTags', { tags: [{ tag: 'urn:li:tag:A' }, { tag: 'urn:li:tag:B' }] })).toEqual(
      { tags: ['urn:li:tag:A', 'urn:li:tag:B'], hasTags: [true], ...noAttribution },
    );
    expect(contributionOf(dataset, 'globalTags', { tags: [] })).toEqual({
      tags: [],
      hasTags: [false],
      ...noAttribution,
    });
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

describe('evolveDocument', () => {
  const spec = projectionSpecification(evolveDocument, undefined as SearchDocument | null | undefined);
  const tagged = (tag: string) => change('globalTags', { tags: [{ tag }] });
  const owned = change('ownership', { owners: [{ owner: 'urn:li:corpuser:ann', type: 'DATAOWNER' }] });

  it('replaces one aspect’s contribution, leaving the others', () => {
    spec
      .given(tagged('urn:li:tag:A'), owned)
      .when(tagged('urn:li:tag:B'))
      .then({
        urn,
        entityType: 'dataset',
        aspects: {
          ownership: {
            owners: ['urn:li:corpuser:ann'],
            hasOwners: [true],
            ownerTypes: [],
            ownerAttributionActors: [],
            ownerAttributionDates: [],
            ownerAttributionSources: [],
          },
          globalTags: { tags: ['urn:li:tag:B'], hasTags: [true], ...noAttribution },
        },
      });
  });

  it('removes an aspect’s contribution when the aspect is deleted', () => {
    spec
      .given(tagged('urn:li:tag:A'), owned)
      .when(change('globalTags', undefined, 'DELETE'))
      .then((document) => {
        expect(Object.keys(document?.aspects ?? {})).toEqual(['ownership']);
      });
  });

  it('removes the document when the key aspect is deleted, and starts afresh after it', () => {
    spec
      .given(tagged('urn:li:tag:A'))
      .when(change('datasetKey', undefined, 'DELETE'))
      .then(null);
    spec
      .given(tagged('urn:li:tag:A'), change('datasetKey', undefined, 'DELETE'))
      .when(owned)
      .then((document) => {
        expect(Object.keys(document?.aspects ?? {})).toEqual(['ownership']);
      });
  });

  it('is idempotent: the same change again leaves the same document', () => {
    const once = spec.when(tagged('urn:li:tag:A')).then(() => undefined);
    spec.given(tagged('urn:li:tag:A')).when(tagged('urn:li:tag:A')).then(once);
  });
});

describe('graphChangeOf', () => {
  it('replaces the aspect’s edges with those its value implies, stamped with the change', () => {
    expect(graphChangeOf(change('globalTags', { tags: [{ tag: 'urn:li:tag:B' }] }))).toEqual({
      kind: 'replaceEdges',
      source: urn,
      aspect: 'globalTags',
      edges: [{ type: 'TaggedWith', destination: 'urn:li:tag:B', createdAt: 5, createdBy: 'urn:li:corpuser:jdoe' }],
    });
  });

  it('removes the aspect’s edges when the aspect is deleted', () => {
    expect(graphChangeOf(change('globalTags', undefined, 'DELETE'))).toEqual({
      kind: 'replaceEdges',
      source: urn,
      aspect: 'globalTags',
      edges: [],
    });
  });

  it('removes every edge from or to the entity when the key aspect is deleted', () => {
    expect(graphChangeOf(change('datasetKey', undefined, 'DELETE'))).toEqual({ kind: 'removeEntity', urn });
  });
});

describe('contributionOf at scale', () => {
  // Speed is the bench's to measure; this only has to finish: the quadratic de-duplication it replaced outran jest's
  // test timeout by minutes on 100,000 owners.
  it('keeps each value once, in first-seen order, for 100,000 owners (half of them repeated)', () => {
    const owners = Array.from({ length: 100_000 }, (_unused, index) => ({
      owner: `urn:li:corpuser:user${index % 50_000}`,
      type: 'DATAOWNER',
    }));
    const fields = contributionOf(dataset, 'ownership', { owners });
    expect(fields['owners']).toHaveLength(50_000);
    expect(fields['owners']?.[49_999]).toBe('urn:li:corpuser:user49999');
  });
});
