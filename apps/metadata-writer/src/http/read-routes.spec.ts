import type { RequestContext, Route } from '@strata/http';
import { BadRequestError } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import { SqliteAspectStore } from '@strata/store';

import { EntityReader } from '../reads/entity-reader';
import { readRoutes } from './read-routes';

const registry = testEntityRegistry();
const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
const USER = 'urn:li:corpuser:jdoe';
const TOO_LONG = 'Error: cannot provide an URN longer than 512 bytes (when URL encoded)';
const LONG_URN = `urn:li:corpuser:${'>'.repeat(200)}`;

const context: RequestContext = {
  requestId: 'request-1',
  traceId: 'trace-1',
  actor: 'urn:li:corpuser:UNKNOWN',
  sourceIp: undefined,
  userAgent: undefined,
  eventSource: 'RESTLI',
  url: '/entitiesV2',
  header: () => undefined,
};

let store: SqliteAspectStore;
let routes: Route[];

beforeEach(async () => {
  store = new SqliteAspectStore({ path: ':memory:' });
  await store.commit({
    mutations: [
      {
        kind: 'put',
        urn: DATASET,
        aspect: 'status',
        expectedVersion: 0,
        row: { version: 1, value: { removed: false }, systemMetadata: {}, createdOn: 1, createdBy: USER },
      },
    ],
    outbox: [],
    appliedProposalIds: [],
  });
  routes = readRoutes(new EntityReader(store, registry));
});

afterEach(async () => {
  await store.close();
});

/** The route of `GET <resource>`, with or without a URN key. */
function route(resource: string, keyed: boolean): Route {
  const found = routes.find((candidate) => candidate.resource === resource && (candidate.key !== undefined) === keyed);
  if (found === undefined) throw new Error(`no route for ${resource}`);
  return found;
}

const batchGet = (query: Record<string, unknown>) =>
  route('/entitiesV2', false).invoke({ query, body: undefined, key: undefined, params: {}, context });

function restliError(status: number, message: string): Record<string, unknown> {
  return {
    exceptionClass: 'com.linkedin.restli.server.RestLiServiceException',
    stackTrace: `com.linkedin.restli.server.RestLiServiceException [HTTP Status:${status}]: ${message}`,
    message,
    status,
  };
}

describe('GET /entitiesV2?ids=List(…) (batch get)', () => {
  it('given good and bad ids, when read, then the good ones are in results and each bad one in errors under its id', async () => {
    const malformed = 'urn:li:dataset:(urn:li:dataPlatform:hive,,PROD)';
    const unknownType = 'urn:li:spaceship:enterprise';
    const notAUrn = 'jdoe';
    const wrongKey = 'urn:li:dataset:(urn:li:dataPlatform:hive,only-two)';
    const response = await batchGet({
      ids: `List(${[DATASET, malformed, USER, unknownType, LONG_URN, notAUrn, wrongKey, '__proto__'].join(',')})`,
    });
    const body = response.body as {
      results: Record<string, { urn: string; aspects: Record<string, unknown> }>;
      errors: Record<string, Record<string, unknown>>;
      statuses: Record<string, unknown>;
    };
    expect(Object.keys(body.results)).toEqual([DATASET, USER]);
    expect(body.results[DATASET]?.aspects['status']).toMatchObject({ value: { removed: false } });
    expect(body.results[USER]?.urn).toBe(USER);
    expect(Object.keys(body.errors)).toEqual([malformed, unknownType, LONG_URN, notAUrn, wrongKey, '__proto__']);
    expect(body.errors[unknownType]).toEqual(restliError(400, `Unknown entity type spaceship in URN ${unknownType}`));
    expect(body.errors[LONG_URN]).toEqual(restliError(400, TOO_LONG));
    for (const id of [malformed, notAUrn, wrongKey, '__proto__']) {
      expect(body.errors[id]).toMatchObject({ status: 400, message: expect.stringContaining('Invalid URN') });
    }
    expect(body.statuses).toEqual({});
  });

  it('given an aspect name the entities do not have, when read, then the whole request is a 400', async () => {
    await expect(batchGet({ ids: `List(${DATASET},${USER})`, aspects: 'List(nonsense)' })).rejects.toThrow(
      new BadRequestError('Unknown aspect nonsense for entity dataset'),
    );
  });

  it('given only bad ids, when read, then results are empty and every id has its error', async () => {
    const response = await batchGet({ ids: `List(${LONG_URN})` });
    expect(response.body).toEqual({ results: {}, statuses: {}, errors: { [LONG_URN]: restliError(400, TOO_LONG) } });
  });
});

describe('GET /entitiesV2/{urn}, /entities/{urn}, /aspects/{urn} with a URN too long to be read back', () => {
  it.each([
    ['/entitiesV2', {}],
    ['/entities', {}],
    ['/aspects', { aspect: 'status' }],
  ])(
    'given %s of a URN over 512 characters encoded, when read, then a 400 with DataHub’s message',
    async (resource, query) => {
      await expect(
        route(resource, true).invoke({ query, body: undefined, key: LONG_URN, params: {}, context }),
      ).rejects.toThrow(new BadRequestError(TOO_LONG));
    },
  );
});
