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

describe('GET /entitiesVersionedV2?ids=List(…) (versioned batch get)', () => {
  const versionedGet = (query: Record<string, unknown>) =>
    route('/entitiesVersionedV2', false).invoke({ query, body: undefined, key: undefined, params: {}, context });
  const put = (aspect: string, expectedVersion: number, value: Record<string, unknown>) => ({
    kind: 'put' as const,
    urn: DATASET,
    aspect,
    expectedVersion,
    row: {
      version: expectedVersion + 1,
      value,
      systemMetadata: { runId: `r${expectedVersion + 1}` },
      createdOn: 2,
      createdBy: USER,
    },
  });
  type Answer = {
    results: Record<string, { urn: string; aspects: Record<string, { version: number; value: unknown }> }>;
    errors: Record<string, { status: number; message: string }>;
  };
  const answer = async (query: Record<string, unknown>) => (await versionedGet(query)).body as Answer;

  beforeEach(async () => {
    // status: v1 {removed: false} (written above), v2 {removed: true}, v3 {removed: false} the latest.
    await store.commit({
      mutations: [put('status', 1, { removed: true }), put('datasetProperties', 0, { description: 'one' })],
      outbox: [],
      appliedProposalIds: [],
    });
    await store.commit({ mutations: [put('status', 2, { removed: false })], outbox: [], appliedProposalIds: [] });
  });

  it('given a stamp, when read, then only the aspects it names, each at its version, keyed by the plain URN', async () => {
    const body = await answer({ ids: `List((${DATASET} , status:2;datasetProperties:0))`, entityType: 'dataset' });
    expect(Object.keys(body.results)).toEqual([DATASET]);
    const aspects = body.results[DATASET]!.aspects;
    expect(Object.keys(aspects).sort()).toEqual(['datasetKey', 'datasetProperties', 'status']);
    expect(aspects['status']).toMatchObject({ version: 2, value: { removed: true } });
    expect(aspects['datasetProperties']).toMatchObject({ version: 0, value: { description: 'one' } });
    expect(aspects['datasetKey']).toMatchObject({ version: 0, value: { name: 'db.orders', origin: 'PROD' } });
  });

  it("given a version that names no stored row, when read, then that aspect is left out, as DataHub's table has none", async () => {
    // 3 is the latest's own ordinal: DataHub keeps the latest under version 0 only.
    for (const version of [3, 7, -1]) {
      const body = await answer({ ids: `List((${DATASET} , status:${version}))`, entityType: 'dataset' });
      expect(Object.keys(body.results[DATASET]!.aspects)).toEqual(['datasetKey']);
    }
    const first = await answer({
      ids: `List((${DATASET} , status:1))`,
      entityType: 'dataset',
      aspects: 'List(status)',
    });
    expect(first.results[DATASET]!.aspects['status']).toMatchObject({ version: 1, value: { removed: false } });
  });

  it('given an empty stamp, when read, then every projected aspect at its latest', async () => {
    const body = await answer({
      ids: `List((${DATASET} , ),(${USER} , null))`,
      entityType: 'dataset',
      aspects: 'List(status)',
    });
    expect(body.results[DATASET]!.aspects['status']).toMatchObject({ version: 0, value: { removed: false } });
    expect(Object.keys(body.results[DATASET]!.aspects).sort()).toEqual(['datasetKey', 'status']);
    // A URN of another type than entityType, or one that does not parse, is answered under its key.
    expect(body.errors).toEqual({
      [`(${USER} , null)`]: restliError(400, `URN ${USER} is not of entity type dataset`),
    });
    const unreadable = await answer({ ids: 'List((jdoe , status:1))', entityType: 'dataset' });
    expect(unreadable.errors['(jdoe , status:1)']).toMatchObject({
      status: 400,
      message: expect.stringContaining('Invalid URN'),
    });
  });

  it('given a key, a stamp, an entity type or an aspect that cannot be read, when asked, then the whole request is a 400', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ids: `List((${DATASET} , status))`, entityType: 'dataset' }, 'Invalid version stamp cannot be parsed: status'],
      [{ ids: `List((${DATASET} , status:x))`, entityType: 'dataset' }, 'Invalid value for aspect version: x'],
      [
        { ids: `List(${DATASET})`, entityType: 'dataset' },
        `Invalid versioned URN ${DATASET}: expected (<urn> , <versionStamp>)`,
      ],
      [{ ids: `List((${DATASET} , ))`, entityType: 'spaceship' }, 'Unknown entity type: spaceship'],
      [
        { ids: `List((${DATASET} , ))`, entityType: 'dataset', aspects: 'List(nonsense)' },
        'Unknown aspect nonsense for entity dataset',
      ],
      [
        { ids: `List((${DATASET} , status:1),(${DATASET} , status:2))`, entityType: 'dataset' },
        `The URN ${DATASET} is named by more than one key`,
      ],
    ];
    for (const [query, message] of cases)
      await expect(versionedGet(query)).rejects.toThrow(new BadRequestError(message));
    await expect(versionedGet({ ids: `List((${DATASET} , ))` })).rejects.toThrow(/entityType/);
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
