import type { RequestContext } from '@strata/http';
import { BadRequestError } from '@strata/model';
import { browseResultBody, relationshipsBody, responseShapeOf, searchResultBody } from './response-shapes';

function contextWith(headers: Record<string, string>): RequestContext {
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return {
    requestId: 'r',
    traceId: 't',
    actor: 'urn:li:corpuser:datahub',
    sourceIp: undefined,
    userAgent: lower['user-agent'],
    eventSource: 'RESTLI',
    url: '/',
    header: (name) => lower[name.toLowerCase()],
  };
}

const result = {
  from: 0,
  pageSize: 10,
  numEntities: 2,
  hits: [
    { urn: 'urn:li:dataset:a', matchedFields: [{ name: 'name', value: 'a' }] },
    { urn: 'urn:li:dataset:b', matchedFields: [] },
  ],
  facets: [{ field: 'platform', displayName: 'Platform', counts: { 'urn:li:dataPlatform:hive': 2 } }],
};

describe('the shape of an answer', () => {
  it.each([
    [{}, 'interface'],
    [{ 'X-DataHub-Py-Cli-Version': '1.2.0' }, 'current'],
    [{ 'X-DataHub-Client-Mode': 'SDK' }, 'current'],
    [{ 'X-RestLi-Method': 'action' }, 'current'],
    [{ 'User-Agent': 'DataHub-RestClient/1.2.0' }, 'current'],
    [{ 'User-Agent': 'curl/8.0' }, 'interface'],
    [{ 'X-RestLi-Protocol-Version': '2.0.0' }, 'interface'],
    [{ 'X-DataHub-Py-Cli-Version': '1.2.0', 'X-Strata-Response-Shape': 'interface' }, 'interface'],
    [{ 'X-Strata-Response-Shape': 'Current' }, 'current'],
  ])('with headers %j, by default interface, is %s', (headers, shape) => {
    expect(responseShapeOf(contextWith(headers), 'interface')).toBe(shape);
  });

  it("is the server's default for a caller that neither asks nor is DataHub's client", () => {
    expect(responseShapeOf(contextWith({}), 'current')).toBe('current');
  });

  it('refuses a shape it does not know', () => {
    expect(() => responseShapeOf(contextWith({ 'X-Strata-Response-Shape': 'v2' }), 'interface')).toThrow(
      BadRequestError,
    );
  });
});

describe('one result in each shape', () => {
  it('maps a search result to the interface document’s shape', () => {
    expect(searchResultBody(result, 'interface')).toEqual({
      numEntities: 2,
      pageSize: 10,
      from: 0,
      entities: ['urn:li:dataset:a', 'urn:li:dataset:b'],
      metadata: {
        urns: ['urn:li:dataset:a', 'urn:li:dataset:b'],
        matches: [{ matchedFields: [{ name: 'name', value: 'a' }] }, { matchedFields: [] }],
        searchResultMetadatas: [
          { name: 'platform', displayName: 'Platform', aggregations: { 'urn:li:dataPlatform:hive': 2 } },
        ],
      },
    });
  });

  it('maps a search result to the current shape, with a scroll id when there is one', () => {
    expect(searchResultBody({ ...result, scrollId: 'next' }, 'current')).toEqual({
      numEntities: 2,
      pageSize: 10,
      from: 0,
      scrollId: 'next',
      entities: [
        { entity: 'urn:li:dataset:a', matchedFields: [{ name: 'name', value: 'a' }] },
        { entity: 'urn:li:dataset:b', matchedFields: [] },
      ],
      metadata: {
        aggregations: [
          {
            name: 'platform',
            displayName: 'Platform',
            aggregations: { 'urn:li:dataPlatform:hive': 2 },
            filterValues: [{ value: 'urn:li:dataPlatform:hive', facetCount: 2 }],
          },
        ],
        suggestions: [],
      },
    });
  });

  it('maps a browse page to both shapes', () => {
    const page = {
      path: '/prod/hive',
      totalNumEntities: 3,
      numEntities: 1,
      groups: [{ name: 'db', count: 2 }],
      entities: [{ urn: 'urn:li:dataset:a', name: 'a' }],
    };
    expect(browseResultBody(page, { from: 0, pageSize: 10 }, 'interface')).toEqual({
      numEntities: 1,
      pageSize: 10,
      from: 0,
      entities: [{ name: 'a', urn: 'urn:li:dataset:a' }],
      metadata: { totalNumEntities: 3, groups: [{ name: 'db', count: 2 }], path: '/prod/hive' },
    });
    expect(browseResultBody(page, { from: 0, pageSize: 10 }, 'current')).toEqual({
      entities: [{ name: 'urn:li:dataset:a', urn: 'urn:li:dataset:a' }],
      groups: [{ name: 'db', count: 2 }],
      metadata: { path: '/prod/hive', totalNumEntities: 3 },
      from: 0,
      pageSize: 10,
      numEntities: 1,
      numGroups: 1,
      numElements: 2,
    });
  });

  it('maps relationships to both shapes', () => {
    const page = {
      start: 0,
      total: 1,
      relationships: [{ type: 'OwnedBy', entity: 'urn:li:corpuser:a', createdAt: 5, createdBy: 'urn:li:corpuser:b' }],
    };
    const relationships = [
      { type: 'OwnedBy', entity: 'urn:li:corpuser:a', created: { time: 5, actor: 'urn:li:corpuser:b' } },
    ];
    expect(relationshipsBody(page, 'current')).toEqual({ start: 0, count: 1, total: 1, relationships });
    expect(relationshipsBody(page, 'interface')).toEqual({
      entities: ['urn:li:corpuser:a'],
      start: 0,
      count: 1,
      total: 1,
      relationships,
    });
  });
});
