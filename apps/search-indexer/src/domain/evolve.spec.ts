import { testEntityRegistry } from '@strata/model/testing';
import type { EntitySpec } from '@strata/model';
import type { SearchDocument } from '@strata/indices';
import { projectionSpecification } from '@strata/testing/specifications';
import {
  columnLineageEdgesOf,
  contributionOf,
  edgesOf,
  evolveDocument,
  graphChangesOf,
  type AspectChange,
} from './evolve';

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

describe('edgesOf, with the stamps an annotation points to', () => {
  const upstream = (name: string, extra: Record<string, unknown>) => ({
    dataset: `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`,
    type: 'TRANSFORMED',
    ...extra,
  });
  const stamp = { createdAt: 5, createdBy: 'urn:li:corpuser:jdoe' };

  it('takes each upstream’s own created and audit stamps, item by item, and marks lineage drawn in the UI', () => {
    const edges = edgesOf(
      dataset,
      'upstreamLineage',
      {
        upstreams: [
          upstream('a', {
            created: { time: 100, actor: 'urn:li:corpuser:creator' },
            auditStamp: { time: 200, actor: 'urn:li:corpuser:updater' },
          }),
          upstream('b', { auditStamp: { time: 0, actor: 'urn:li:corpuser:unknown' } }),
          upstream('c', { auditStamp: { time: 300, actor: 'urn:li:corpuser:ui' }, properties: { source: 'UI' } }),
        ],
      },
      stamp,
    );
    expect(edges).toEqual([
      {
        type: 'DownstreamOf',
        destination: 'urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)',
        createdAt: 100,
        createdBy: 'urn:li:corpuser:creator',
        updatedAt: 200,
        updatedBy: 'urn:li:corpuser:updater',
      },
      {
        // A time of 0 is no time: the change's stamp stands in for the creation, and there is no update.
        type: 'DownstreamOf',
        destination: 'urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD)',
        createdAt: 5,
        createdBy: 'urn:li:corpuser:jdoe',
      },
      {
        type: 'DownstreamOf',
        destination: 'urn:li:dataset:(urn:li:dataPlatform:hive,c,PROD)',
        createdAt: 5,
        createdBy: 'urn:li:corpuser:jdoe',
        updatedAt: 300,
        updatedBy: 'urn:li:corpuser:ui',
        manual: true,
      },
    ]);
  });

  it('keeps the fine-grained upstreams as edges to schema fields, with the change’s stamp', () => {
    const field = 'urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD),id)';
    const edges = edgesOf(
      dataset,
      'upstreamLineage',
      {
        upstreams: [upstream('a', {})],
        fineGrainedLineages: [
          { upstreamType: 'FIELD_SET', downstreamType: 'FIELD', upstreams: [field], downstreams: [`${field}x`] },
        ],
      },
      stamp,
    );
    expect(edges.map((edge) => [edge.destination, edge.createdAt])).toEqual([
      ['urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)', 5],
      [field, 5],
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
        lastChangedAt: 5,
      });
  });

  describe('lastChangedAt', () => {
    const at = (time: number | undefined, base: AspectChange): AspectChange => {
      const { createdAt: _ignored, ...rest } = base;
      return time === undefined ? rest : { ...rest, createdAt: time };
    };
    const changedAt = (document: SearchDocument | null | undefined) => document?.lastChangedAt;

    it('is the stamp of the latest change, whatever its aspect', () => {
      spec
        .given(at(100, tagged('urn:li:tag:A')), at(200, owned))
        .when(at(300, change('status', { removed: false })))
        .then((document) => {
          expect(changedAt(document)).toBe(300);
        });
    });

    it('moves forward on a newer change, and never back on a late or replayed older one', () => {
      spec
        .given(at(100, tagged('urn:li:tag:A')), at(300, owned))
        .when(at(200, tagged('urn:li:tag:B')))
        .then((document) => {
          expect(changedAt(document)).toBe(300);
          expect(document?.aspects['globalTags']?.['tags']).toEqual(['urn:li:tag:B']);
        });
      spec
        .given(at(300, owned))
        .when(at(300, owned))
        .then((document) => {
          expect(changedAt(document)).toBe(300);
        });
    });

    it('moves forward on an aspect deletion too', () => {
      spec
        .given(at(100, tagged('urn:li:tag:A')), at(200, owned))
        .when(at(400, change('globalTags', undefined, 'DELETE')))
        .then((document) => {
          expect(changedAt(document)).toBe(400);
        });
    });

    it('keeps the known time when a change has no stamp, and starts afresh after the entity is deleted', () => {
      spec
        .given(at(100, tagged('urn:li:tag:A')))
        .when(at(undefined, owned))
        .then((document) => {
          expect(changedAt(document)).toBe(100);
        });
      spec
        .given(at(500, tagged('urn:li:tag:A')), at(600, change('datasetKey', undefined, 'DELETE')))
        .when(at(50, owned))
        .then((document) => {
          expect(changedAt(document)).toBe(50);
        });
      spec.when(at(undefined, owned)).then((document) => {
        expect(document).not.toHaveProperty('lastChangedAt');
      });
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

describe('graphChangesOf', () => {
  it('replaces the aspect’s edges with those its value implies, stamped with the change', () => {
    expect(graphChangesOf(change('globalTags', { tags: [{ tag: 'urn:li:tag:B' }] }))).toEqual([
      {
        kind: 'replaceEdges',
        source: urn,
        aspect: 'globalTags',
        edges: [{ type: 'TaggedWith', destination: 'urn:li:tag:B', createdAt: 5, createdBy: 'urn:li:corpuser:jdoe' }],
      },
    ]);
  });

  it('removes the aspect’s edges when the aspect is deleted', () => {
    expect(graphChangesOf(change('globalTags', undefined, 'DELETE'))).toEqual([
      { kind: 'replaceEdges', source: urn, aspect: 'globalTags', edges: [] },
    ]);
  });

  it('removes the entity’s edges, those it holds included, when the key aspect is deleted', () => {
    expect(graphChangesOf(change('datasetKey', undefined, 'DELETE'))).toEqual([{ kind: 'removeEntity', urn }]);
  });

  describe('column-level lineage', () => {
    const field = (dataset: string, path: string) => `urn:li:schemaField:(${dataset},${path})`;
    const raw = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.raw,PROD)';
    const lookup = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.lookup,PROD)';
    const lineage = {
      upstreams: [{ dataset: raw, type: 'TRANSFORMED', auditStamp: { time: 0, actor: 'urn:li:corpuser:x' } }],
      fineGrainedLineages: [
        {
          upstreamType: 'FIELD_SET',
          upstreams: [field(raw, 'id'), field(lookup, 'key')],
          downstreamType: 'FIELD',
          downstreams: [field(urn, 'id')],
          query: 'urn:li:query:q1',
        },
        {
          upstreamType: 'DATASET',
          upstreams: [lookup],
          downstreamType: 'FIELD_SET',
          downstreams: [field(urn, 'name'), field(urn, 'label')],
        },
        // The same pair again: one edge.
        {
          upstreamType: 'FIELD_SET',
          upstreams: [field(raw, 'id')],
          downstreamType: 'FIELD',
          downstreams: [field(urn, 'id')],
        },
      ],
    };

    it('holds an edge DownstreamOf from each downstream to each upstream, whatever the types, without stamps', () => {
      const [own, held] = graphChangesOf(change('upstreamLineage', lineage));
      expect(own).toMatchObject({ kind: 'replaceEdges', source: urn, aspect: 'upstreamLineage' });
      expect(held).toEqual({
        kind: 'replaceHeldEdges',
        holder: urn,
        aspect: 'upstreamLineage',
        edges: [
          { source: field(urn, 'id'), type: 'DownstreamOf', destination: field(raw, 'id') },
          { source: field(urn, 'id'), type: 'DownstreamOf', destination: field(lookup, 'key') },
          { source: field(urn, 'name'), type: 'DownstreamOf', destination: lookup },
          { source: field(urn, 'label'), type: 'DownstreamOf', destination: lookup },
        ],
      });
    });

    it('keeps the holder’s own edges as the annotations say: to the upstream datasets and fields', () => {
      const [own] = graphChangesOf(change('upstreamLineage', lineage));
      expect(own?.kind === 'replaceEdges' ? own.edges.map((edge) => edge.destination) : []).toEqual([
        raw,
        field(raw, 'id'),
        field(lookup, 'key'),
        lookup,
      ]);
    });

    it('ends the list at an entry without downstreams or upstreams, as DataHub does, and skips what is no URN', () => {
      const held = (value: unknown) => graphChangesOf(change('upstreamLineage', value))[1];
      expect(
        held({
          upstreams: [],
          fineGrainedLineages: [
            {
              upstreamType: 'FIELD_SET',
              upstreams: ['not a urn', field(raw, 'a')],
              downstreamType: 'FIELD',
              downstreams: [field(urn, 'a')],
            },
            { upstreamType: 'NONE', downstreamType: 'FIELD', downstreams: [field(urn, 'b')] },
            {
              upstreamType: 'FIELD_SET',
              upstreams: [field(raw, 'c')],
              downstreamType: 'FIELD',
              downstreams: [field(urn, 'c')],
            },
          ],
        }),
      ).toEqual({
        kind: 'replaceHeldEdges',
        holder: urn,
        aspect: 'upstreamLineage',
        edges: [{ source: field(urn, 'a'), type: 'DownstreamOf', destination: field(raw, 'a') }],
      });
      expect(held({ upstreams: [] })).toMatchObject({ kind: 'replaceHeldEdges', edges: [] });
    });

    it('empties the held edges when the aspect is deleted, and replaces them whole on every write (a rebuild too)', () => {
      expect(graphChangesOf(change('upstreamLineage', undefined, 'DELETE'))).toEqual([
        { kind: 'replaceEdges', source: urn, aspect: 'upstreamLineage', edges: [] },
        { kind: 'replaceHeldEdges', holder: urn, aspect: 'upstreamLineage', edges: [] },
      ]);
      // A restatement without any previous value says the same as the write it replays.
      expect(graphChangesOf(change('upstreamLineage', lineage, 'RESTATE'))).toEqual(
        graphChangesOf(change('upstreamLineage', lineage)),
      );
    });

    it('holds a data job’s column-level lineage too, the job being the holder', () => {
      const job = registry.entity('dataJob') as EntitySpec;
      const jobUrn = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,etl,PROD),load)';
      const changes = graphChangesOf({
        entity: job,
        urn: jobUrn,
        aspectName: 'dataJobInputOutput',
        changeType: 'UPSERT',
        value: {
          inputDatasets: [raw],
          outputDatasets: [urn],
          fineGrainedLineages: [
            {
              upstreamType: 'FIELD_SET',
              upstreams: [field(raw, 'id')],
              downstreamType: 'FIELD',
              downstreams: [field(urn, 'id')],
            },
          ],
        },
      });
      expect(changes[1]).toEqual({
        kind: 'replaceHeldEdges',
        holder: jobUrn,
        aspect: 'dataJobInputOutput',
        edges: [{ source: field(urn, 'id'), type: 'DownstreamOf', destination: field(raw, 'id') }],
      });
    });

    it('holds nothing for other aspects', () => {
      expect(columnLineageEdgesOf({ fineGrainedLineages: 'no' })).toEqual([]);
      expect(graphChangesOf(change('ownership', { owners: [] }))).toHaveLength(1);
    });
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
