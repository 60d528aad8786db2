import type { ChangeLogEvent } from '@strata/change-log';
import type { LogRecord } from '@strata/log';
import type { EntitySpec } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import { SqliteGraphIndex, type RelationshipDirection } from '@strata/indices';
import { graphEdgeHook } from './graph-edge-hook';

const registry = testEntityRegistry();
const datasetSpec = registry.entity('dataset') as EntitySpec;
const jobSpec = registry.entity('dataJob') as EntitySpec;

const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,db.${name},PROD)`;
const field = (parent: string, path: string) => `urn:li:schemaField:(${parent},${path})`;
const [raw, clean] = [dataset('raw'), dataset('clean')];
const load = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,etl,PROD),load)';

/** A versioned change log as the processor hands it to the hook (no previous value: the hook needs none). */
function event(
  entity: EntitySpec,
  urn: string,
  aspectName: string,
  value: unknown,
  changeType = 'UPSERT',
): ChangeLogEvent {
  return {
    kind: 'versioned',
    record: {} as LogRecord,
    entity,
    aspect: entity.aspect(aspectName) ?? entity.keyAspect,
    urn,
    changeType,
    value,
    previousValue: undefined,
    created: { time: 1, actor: 'urn:li:corpuser:datahub' },
    systemMetadata: undefined,
    headers: {},
  };
}

/** `upstreamLineage` of `clean` with one fine-grained entry per downstream path, each from raw's field of that path. */
const lineageOf = (...paths: string[]) => ({
  upstreams: [{ dataset: raw, type: 'TRANSFORMED', auditStamp: { time: 0, actor: 'urn:li:corpuser:datahub' } }],
  fineGrainedLineages: paths.map((path) => ({
    upstreamType: 'FIELD_SET',
    upstreams: [field(raw, path)],
    downstreamType: 'FIELD',
    downstreams: [field(clean, path)],
  })),
});

describe('graphEdgeHook: column-level lineage', () => {
  let graph: SqliteGraphIndex;
  const apply = (...events: ChangeLogEvent[]) => graphEdgeHook(graph).apply(events);
  const ends = async (urn: string, direction: RelationshipDirection) =>
    // The schema fields at the other end (the dataset's own edges to its upstream fields are not column lineage).
    (await graph.relationships({ urn, direction, types: ['DownstreamOf'], start: 0, count: 100 })).relationships
      .map((relationship) => relationship.entity)
      .filter((entity) => entity.startsWith('urn:li:schemaField:'));

  beforeEach(() => {
    graph = new SqliteGraphIndex({ path: ':memory:' });
  });
  afterEach(() => graph.close());

  it('makes each downstream field DownstreamOf its upstream fields, and drops the fields a rewrite no longer names', async () => {
    await apply(event(datasetSpec, clean, 'upstreamLineage', lineageOf('id', 'name')));
    expect(await ends(field(clean, 'id'), 'OUTGOING')).toEqual([field(raw, 'id')]);
    expect(await ends(field(raw, 'name'), 'INCOMING')).toEqual([field(clean, 'name')]);

    await apply(event(datasetSpec, clean, 'upstreamLineage', lineageOf('id')));
    expect(await ends(field(clean, 'id'), 'OUTGOING')).toEqual([field(raw, 'id')]);
    expect(await ends(field(clean, 'name'), 'OUTGOING')).toEqual([]);
  });

  it('keeps a job’s column lineage apart from the dataset’s, and removes each with its aspect or its holder', async () => {
    await apply(
      event(datasetSpec, clean, 'upstreamLineage', lineageOf('id')),
      event(jobSpec, load, 'dataJobInputOutput', { inputDatasets: [raw], outputDatasets: [clean], ...lineageOf('id') }),
    );
    expect(await ends(field(raw, 'id'), 'INCOMING')).toEqual([field(clean, 'id')]);

    await apply(event(datasetSpec, clean, 'upstreamLineage', undefined, 'DELETE'));
    expect(await ends(field(clean, 'id'), 'OUTGOING')).toEqual([field(raw, 'id')]);
    await apply(event(jobSpec, load, 'dataJobKey', undefined, 'DELETE'));
    expect(await ends(field(clean, 'id'), 'OUTGOING')).toEqual([]);
  });

  it('rebuilds the same edges from restatements replayed into a cleared index', async () => {
    await apply(event(datasetSpec, clean, 'upstreamLineage', lineageOf('id', 'name')));
    await apply(event(datasetSpec, clean, 'upstreamLineage', lineageOf('name')));
    const before = [await ends(field(clean, 'id'), 'OUTGOING'), await ends(field(clean, 'name'), 'OUTGOING')];
    await graph.clear();
    await apply(event(datasetSpec, clean, 'upstreamLineage', lineageOf('name'), 'RESTATE'));
    expect([await ends(field(clean, 'id'), 'OUTGOING'), await ends(field(clean, 'name'), 'OUTGOING')]).toEqual(before);
    expect(before).toEqual([[], [field(raw, 'name')]]);
  });
});
