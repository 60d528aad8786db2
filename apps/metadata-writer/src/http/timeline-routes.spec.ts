import type { RequestContext, Route } from '@strata/http';
import { BadRequestError } from '@strata/model';
import type { TimelineQuery, TimelineReader, TimelineResult } from '../reads/timeline-reader';
import { timelineRoutes } from './timeline-routes';

const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
const context: RequestContext = {
  requestId: 'request-1',
  traceId: 'trace-1',
  actor: 'urn:li:corpuser:UNKNOWN',
  sourceIp: undefined,
  userAgent: undefined,
  eventSource: 'OPENAPI',
  url: '/openapi/timeline/v1/x',
  header: () => undefined,
};

/** The route over a reader that records what it was asked and answers `result`. */
function routeAnswering(result: TimelineResult): { route: Route; asked: TimelineQuery[] } {
  const asked: TimelineQuery[] = [];
  const reader = {
    read: (query: TimelineQuery) => {
      asked.push(query);
      return Promise.resolve(result);
    },
  } as unknown as TimelineReader;
  const [route] = timelineRoutes(reader);
  return { route: route!, asked };
}

const call = (route: Route, query: Record<string, unknown>, key: string | undefined = DATASET) =>
  route.invoke({ query, body: undefined, key, params: {}, context });

describe('GET /openapi/timeline/v1/{urn}', () => {
  it('declares DataHub’s path and the ENTITY READ privilege on the entity in the path', () => {
    const { route } = routeAnswering({ transactions: [] });
    expect(route).toMatchObject({ method: 'GET', resource: '/openapi/timeline/v1', family: 'openapi' });
    expect(route.key?.name).toBe('urn');
    expect(route.access).toEqual({
      kind: 'resource',
      group: 'ENTITY',
      operations: ['READ'],
      resource: { in: 'key' },
      message: '{actor} is unauthorized to view entity {resource}',
    });
  });

  it('given what the CLI sends, when called, then the reader gets the parsed categories, window and raw flag', async () => {
    const { route, asked } = routeAnswering({ transactions: [] });
    const response = await call(route, {
      categories: 'TAG,OWNER,technical_schema',
      startTime: '1700000000000',
      endTime: '1800000000000',
      raw: 'True',
    });
    expect(response).toEqual({ body: [] });
    expect(asked).toEqual([
      {
        urn: DATASET,
        categories: ['TAG', 'OWNERSHIP', 'TECHNICAL_SCHEMA'],
        startTime: 1700000000000,
        endTime: 1800000000000,
        raw: true,
      },
    ]);
  });

  it('given only categories, repeated, when called, then DataHub’s defaults: a week back from now, no raw diff', async () => {
    const { route, asked } = routeAnswering({ transactions: [] });
    await call(route, { categories: ['TAG', 'DOCUMENTATION'] });
    expect(asked[0]).toMatchObject({ categories: ['TAG', 'DOCUMENTATION'], startTime: -1, endTime: 0, raw: false });
  });

  it.each([
    ['no categories', {}],
    ['an unknown category', { categories: 'TAG,COLOR' }],
    ['a start that is no number', { categories: 'TAG', startTime: 'yesterday' }],
    ['an end with a fraction', { categories: 'TAG', endTime: '1.5' }],
    ['raw that is no boolean', { categories: 'TAG', raw: 'maybe' }],
  ])('given %s, when called, then a bad request', async (_case, query) => {
    const { route } = routeAnswering({ transactions: [] });
    await expect(call(route, query)).rejects.toThrow(BadRequestError);
  });

  it('given a transaction, when answered, then DataHub’s JSON: its members in order, absent ones left out', async () => {
    const { route } = routeAnswering({
      transactions: [
        {
          timestamp: 5,
          actor: 'urn:li:corpuser:w',
          semVer: '0.0.0-computed',
          semVerChange: 'MINOR',
          changeEvents: [
            {
              description: 'd',
              semVerChange: 'MINOR',
              modifier: 'urn:li:tag:a',
              operation: 'ADD',
              category: 'TAG',
              entityUrn: DATASET,
            },
          ],
          versionStamp: 'globalTags:0',
        },
      ],
    });
    const response = await call(route, { categories: 'TAG' });
    expect(JSON.stringify(response.body)).toBe(
      JSON.stringify([
        {
          timestamp: 5,
          actor: 'urn:li:corpuser:w',
          semVer: '0.0.0-computed',
          semVerChange: 'MINOR',
          changeEvents: [
            {
              entityUrn: DATASET,
              category: 'TAG',
              operation: 'ADD',
              modifier: 'urn:li:tag:a',
              semVerChange: 'MINOR',
              description: 'd',
            },
          ],
          versionStamp: 'globalTags:0',
        },
      ]),
    );
  });

  it('given a timeline cut at the read limit, when answered, then a Warning header says from when it is complete', async () => {
    const { route } = routeAnswering({ transactions: [], coveredFrom: 1234 });
    const response = await call(route, { categories: 'TAG' });
    expect(response.headers?.['Warning']).toMatch(/^199 strata ".*from 1234 \(epoch milliseconds\) on"$/);
  });
});
