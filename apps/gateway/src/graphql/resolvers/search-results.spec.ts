import { BadGatewayError } from '@strata/model';
import { facetsOf, lineageResultOf, searchResultOf, valueOf } from './search-results';

const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';

describe('search results as DataHub’s GraphQL types', () => {
  it('answers a hit as its entity, its matched fields (with the entity a URN value names), no insights', () => {
    expect(
      searchResultOf({
        entity: DATASET,
        matchedFields: [
          { name: 'name', value: 'orders' },
          { name: 'container', value: 'urn:li:container:db' },
          { name: 'note', value: 'urn:li:dataHubSecret:x' },
        ],
      }),
    ).toEqual({
      entity: { urn: DATASET, entityName: 'dataset', type: 'DATASET' },
      matchedFields: [
        { name: 'name', value: 'orders', entity: null },
        {
          name: 'container',
          value: 'urn:li:container:db',
          entity: { urn: 'urn:li:container:db', entityName: 'container', type: 'CONTAINER' },
        },
        // A URN of a type the API does not serve cannot be answered as an entity.
        { name: 'note', value: 'urn:li:dataHubSecret:x', entity: null },
      ],
      insights: [],
      extraProperties: [],
    });
  });

  it('answers the extra fields a hit carries as extraProperties (name, JSON text)', () => {
    expect(
      searchResultOf({ entity: DATASET, extraFields: { lastModifiedAt: '1700000000000', tags: '["urn:li:tag:a"]' } })
        .extraProperties,
    ).toEqual([
      { name: 'lastModifiedAt', value: '1700000000000' },
      { name: 'tags', value: '["urn:li:tag:a"]' },
    ]);
  });

  it('answers facets with EntityType values for entity types, the `_entityType` facet first, URN values with their entity', () => {
    const facets = facetsOf([
      {
        name: 'platform',
        displayName: 'Platform',
        aggregations: { 'urn:li:dataPlatform:hive': 3 },
        filterValues: [{ value: 'urn:li:dataPlatform:hive', facetCount: 3 }],
      },
      { name: 'origin', aggregations: { PROD: 2, DEV: 1 } },
      { name: 'entity', displayName: 'Type', aggregations: { dataset: 3, dataJob: 1 } },
    ]);
    expect(facets.map((facet) => facet.field)).toEqual(['_entityType', 'platform', 'origin', 'entity']);
    expect(facets[0]).toEqual({
      field: '_entityType',
      displayName: 'Type',
      entity: null,
      aggregations: [
        { value: 'DATASET', count: 3, entity: null, displayName: null },
        { value: 'DATA_JOB', count: 1, entity: null, displayName: null },
      ],
    });
    expect(facets[1]?.aggregations[0]?.entity).toEqual({
      urn: 'urn:li:dataPlatform:hive',
      entityName: 'dataPlatform',
      type: 'DATA_PLATFORM',
    });
    expect(facets[2]).toMatchObject({
      displayName: 'origin',
      aggregations: [
        { value: 'PROD', count: 2, entity: null },
        { value: 'DEV', count: 1, entity: null },
      ],
    });
    expect(facetsOf(undefined)).toEqual([]);
  });

  it('answers a lineage hit with every path, its hops as entities (null for one of a type not served)', () => {
    const job = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,etl,prod),load)';
    const process = 'urn:li:dataProcess:(legacy,PROD)';
    expect(
      lineageResultOf({
        entity: DATASET,
        degree: 2,
        degrees: [2, 3],
        paths: [
          ['urn:li:dataset:(urn:li:dataPlatform:hive,db.src,PROD)', job, DATASET],
          ['urn:li:dataset:(urn:li:dataPlatform:hive,db.src,PROD)', process, job, DATASET],
        ],
        explored: true,
        truncatedChildren: false,
      }),
    ).toEqual({
      entity: { urn: DATASET, entityName: 'dataset', type: 'DATASET' },
      matchedFields: [],
      insights: [],
      paths: [
        {
          path: [
            { urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,db.src,PROD)', entityName: 'dataset', type: 'DATASET' },
            { urn: job, entityName: 'dataJob', type: 'DATA_JOB' },
            { urn: DATASET, entityName: 'dataset', type: 'DATASET' },
          ],
        },
        {
          path: [
            { urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,db.src,PROD)', entityName: 'dataset', type: 'DATASET' },
            null,
            { urn: job, entityName: 'dataJob', type: 'DATA_JOB' },
            { urn: DATASET, entityName: 'dataset', type: 'DATASET' },
          ],
        },
      ],
      degree: 2,
      degrees: [2, 3],
      explored: true,
      truncatedChildren: false,
      ignoredAsHop: false,
    });
  });

  it('takes the value of a Rest.li answer, and calls an answer without one the indexer’s fault', () => {
    expect(valueOf({ value: { numEntities: 0 } }, 'search')).toEqual({ numEntities: 0 });
    expect(() => valueOf({}, 'search')).toThrow(BadGatewayError);
  });
});
