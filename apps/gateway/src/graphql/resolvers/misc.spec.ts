/**
 * `listIngestionSources`, `appConfig`, `me` and `listAccessTokens` on the real schema with a fake context: the
 * documents DataHub's CLI sends, the routes they call, and how their answers are mapped.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import DataLoader from 'dataloader';
import { execute, parse, print, type ExecutionResult } from 'graphql';
import { readGraphqlSchema } from '@strata/schemas';
import type { PrivilegeRequirement, ResourceFacts } from '@strata/auth';
import type { RequestContext, RouteCall } from '@strata/http';
import { ForbiddenError } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import type { Authorizer } from '../../auth/authorizer';
import type { GraphqlContext, LoadedEntity } from '../context';
import { adaptingFieldResolver, executableSchema } from '../schema';
import { manageRequirement, miscResolvers } from './misc';

const FIXTURES = join(__dirname, '..', '..', '..', '..', '..', 'e2e', 'fixtures', 'datahub-graphql');
const schema = executableSchema(
  readGraphqlSchema().map((file) => file.text),
  [miscResolvers],
);

const SOURCE = 'urn:li:dataHubIngestionSource:nightly';
const RUN_OLD = 'urn:li:dataHubExecutionRequest:run-0';
const RUN_NEW = 'urn:li:dataHubExecutionRequest:run-1';

function fakeContext(
  answer: (call: RouteCall) => unknown,
  options: { entities?: Record<string, LoadedEntity>; authorizer?: Partial<Authorizer>; actor?: string } = {},
) {
  const calls: RouteCall[] = [];
  const context = {
    request: { actor: options.actor ?? 'urn:li:corpuser:jdoe', header: () => undefined } as unknown as RequestContext,
    call: (call: RouteCall) => {
      calls.push(call);
      // An answer that throws is a rejected call, as a refused route call is.
      return Promise.resolve().then(() => answer(call));
    },
    system: () => Promise.reject(new Error('unchecked calls are not expected')),
    entities: new DataLoader<string, LoadedEntity | null>((urns) =>
      Promise.resolve(urns.map((urn) => options.entities?.[urn] ?? null)),
    ),
    registry: testEntityRegistry(),
    authorizer: options.authorizer,
    submitter: undefined as never,
    now: () => 1_000,
    deadline: Number.MAX_SAFE_INTEGER,
  } as unknown as GraphqlContext;
  return { context, calls };
}

async function run(source: string, variables: Record<string, unknown>, context: GraphqlContext) {
  return (await execute({
    schema,
    document: parse(source),
    variableValues: variables,
    contextValue: context,
    fieldResolver: adaptingFieldResolver,
  })) as ExecutionResult<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** The ids of the tokens a `listAccessTokens` answer lists. */
function tokenIds(result: ExecutionResult): string[] {
  return (result.data?.['listAccessTokens'] as { tokens: { id: string }[] }).tokens.map((token) => token.id);
}

function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

function entity(urn: string, aspects: Record<string, Record<string, unknown>>): LoadedEntity {
  return {
    urn,
    entityName: urn.split(':')[2] ?? '',
    aspects: Object.fromEntries(Object.entries(aspects).map(([name, value]) => [name, { value }])),
  };
}

describe('listIngestionSources, as `datahub ingest list-source-runs` sends it', () => {
  const entities = {
    [SOURCE]: entity(SOURCE, {
      dataHubIngestionSourceInfo: {
        name: 'nightly snowflake',
        type: 'snowflake',
        platform: 'urn:li:dataPlatform:snowflake',
        config: { recipe: '{"source":{}}', extraArgs: { mode: 'full' } },
      },
    }),
    [RUN_NEW]: entity(RUN_NEW, {
      dataHubExecutionRequestInput: {
        task: 'RUN_INGEST',
        args: { recipe: '{}' },
        source: { type: 'SCHEDULED_INGESTION_SOURCE', ingestionSource: SOURCE },
        requestedAt: 2000,
      },
      dataHubExecutionRequestResult: { status: 'FAILURE', startTimeMs: 2005, durationMs: 10 },
    }),
    [RUN_OLD]: entity(RUN_OLD, {
      dataHubExecutionRequestInput: {
        task: 'RUN_INGEST',
        source: { type: 'MANUAL_INGESTION_SOURCE' },
        requestedAt: 1000,
      },
    }),
  };
  const answer = (call: RouteCall) =>
    call.action === 'search'
      ? { value: { numEntities: 1, pageSize: 100, from: 0, entities: [{ entity: SOURCE, matchedFields: [] }] } }
      : { value: { numEntities: 2, pageSize: 10, from: 0, entities: [{ entity: RUN_NEW }, { entity: RUN_OLD }] } };

  for (const form of ['as written', 'minified'] as const) {
    it(`answers the sources with their executions, newest first (${form})`, async () => {
      const text = fixture('ingest-list-source-runs.graphql');
      const { context, calls } = fakeContext(answer, { entities });
      const result = await run(
        form === 'minified' ? print(parse(text)).replace(/\s+/g, ' ') : text,
        { input: { start: 0, count: 100, filters: [] } },
        context,
      );
      expect(result.errors).toBeUndefined();
      expect(result.data).toEqual({
        listIngestionSources: {
          ingestionSources: [
            {
              urn: SOURCE,
              name: 'nightly snowflake',
              executions: {
                executionRequests: [
                  { id: 'run-1', result: { startTimeMs: 2005, status: 'FAILURE' } },
                  { id: 'run-0', result: null },
                ],
              },
            },
          ],
        },
      });
      expect(calls.map((call) => call.action)).toEqual(['search', 'filter']);
      expect(calls[0]?.body).toMatchObject({ input: '*', entity: 'dataHubIngestionSource', start: 0, count: 100 });
      expect(calls[1]?.body).toEqual({
        entity: 'dataHubExecutionRequest',
        filter: { or: [{ and: [{ field: 'ingestionSource', values: [SOURCE], condition: 'EQUAL', negated: false }] }] },
        sortCriteria: [{ field: 'requestTimeMs', order: 'DESCENDING' }],
        start: 0,
        count: 10,
      });
    });
  }

  it('passes --urn/--source filters on, and answers the rest of a source (config, platform, paging)', async () => {
    const { context, calls } = fakeContext(answer, { entities });
    const result = await run(
      `query($input: ListIngestionSourcesInput!) { listIngestionSources(input: $input) { start count total ingestionSources { type platform { urn } config { recipe executorId version debugMode extraArgs { key value } } executions(start: 1, count: 1) { start count total executionRequests { input { task requestedAt source { type } arguments { key value } } } } } } }`,
      {
        input: {
          start: 0,
          count: 100,
          filters: [
            { field: 'urn', values: ['nightly'], condition: 'CONTAIN' },
            { field: 'name', values: ['snowflake'], condition: 'CONTAIN' },
          ],
          sort: { field: 'name', sortOrder: 'ASCENDING' },
        },
      },
      context,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data?.['listIngestionSources']).toEqual({
      start: 0,
      count: 100,
      total: 1,
      ingestionSources: [
        {
          type: 'snowflake',
          platform: { urn: 'urn:li:dataPlatform:snowflake' },
          config: {
            recipe: '{"source":{}}',
            executorId: 'default',
            version: null,
            debugMode: null,
            extraArgs: [{ key: 'mode', value: 'full' }],
          },
          executions: {
            start: 0,
            count: 10,
            total: 2,
            executionRequests: [
              {
                input: {
                  task: 'RUN_INGEST',
                  requestedAt: 2000,
                  source: { type: 'SCHEDULED_INGESTION_SOURCE' },
                  arguments: [{ key: 'recipe', value: '{}' }],
                },
              },
              {
                input: {
                  task: 'RUN_INGEST',
                  requestedAt: 1000,
                  source: { type: 'MANUAL_INGESTION_SOURCE' },
                  arguments: null,
                },
              },
            ],
          },
        },
      ],
    });
    expect(calls[0]?.body).toMatchObject({
      filter: {
        or: [
          {
            and: [
              { field: 'urn', values: ['nightly'], condition: 'CONTAIN', negated: false },
              { field: 'name', values: ['snowflake'], condition: 'CONTAIN', negated: false },
            ],
          },
        ],
      },
      sortCriteria: [{ field: 'name', order: 'ASCENDING' }],
    });
    expect(calls[1]?.body).toMatchObject({ start: 1, count: 1 });
  });

  it('answers no source as an empty list, and a source without its info (deleted) as none', async () => {
    const { context } = fakeContext(() => ({
      value: { numEntities: 1, pageSize: 20, from: 0, entities: [{ entity: 'urn:li:dataHubIngestionSource:gone' }] },
    }));
    const result = await run(
      `{ listIngestionSources(input: {}) { start count total ingestionSources { urn } } }`,
      {},
      context,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ listIngestionSources: { start: 0, count: 20, total: 1, ingestionSources: [] } });
  });

  it('needs MANAGE_INGESTION, as DataHub does', async () => {
    const require = jest.fn((_context: RequestContext, check: { message: string }) =>
      Promise.reject(new ForbiddenError(check.message)),
    );
    const { context, calls } = fakeContext(answer, { authorizer: { require } as unknown as Authorizer });
    const result = await run(`{ listIngestionSources(input: {}) { total } }`, {}, context);
    expect(result.errors?.[0]?.message).toBe(
      'You are not authorized to list ingestion sources. Please contact your DataHub administrator.',
    );
    expect(require.mock.calls[0]?.[1]).toMatchObject({ requirement: [['MANAGE_INGESTION']] });
    expect(calls).toHaveLength(0);
  });
});

describe('appConfig, as `datahub search diagnose` reads it', () => {
  it('answers third-party logging off and semantic search disabled, and the DataHub version offered', async () => {
    const { context, calls } = fakeContext(() => ({ versions: { 'acryldata/datahub': { version: 'v1.7.0' } } }));
    const ping = await run(fixture('search-diagnose-ping.graphql'), {}, context);
    expect(ping).toEqual({ data: { appConfig: { telemetryConfig: { enableThirdPartyLogging: false } } } });
    const semantic = await run(fixture('search-diagnose-semantic-config.graphql'), {}, context);
    expect(semantic).toEqual({
      data: { appConfig: { semanticSearchConfig: { enabled: false, enabledEntities: [], embeddingConfig: null } } },
    });
    expect(calls).toHaveLength(0);
    const version = await run(`{ appConfig { appVersion } }`, {}, context);
    expect(version).toEqual({ data: { appConfig: { appVersion: 'v1.7.0' } } });
    expect(calls).toEqual([{ method: 'GET', resource: '/config' }]);
  });
});

describe('me', () => {
  const source = `{ me { corpUser { urn type } platformPrivileges { managePolicies manageIdentities manageIngestion createTags manageTags viewAnalytics manageApplications generatePersonalAccessTokens } } }`;

  it('holds every privilege with authentication off (DataHub runs the request as its system actor)', async () => {
    for (const authorizer of [undefined, { enabled: false, requireCaller: () => undefined }]) {
      const { context } = fakeContext(() => undefined, { authorizer: authorizer as unknown as Authorizer });
      const result = await run(source, {}, context);
      expect(result.errors).toBeUndefined();
      expect(result.data?.['me'].corpUser).toEqual({ urn: 'urn:li:corpuser:jdoe', type: 'CORP_USER' });
      expect(Object.values(result.data?.['me'].platformPrivileges as object).every((held) => held === true)).toBe(true);
    }
  });

  it('decides each privilege for the caller with authentication on, manage privileges on the entity type', async () => {
    const granted = new Set(['MANAGE_TAGS', 'GENERATE_PERSONAL_ACCESS_TOKENS', 'EDIT_ENTITY', 'DELETE_ENTITY']);
    const asked: [PrivilegeRequirement, ResourceFacts | undefined][] = [];
    const authorizer = {
      enabled: true,
      requireCaller: () => undefined,
      allows: (_context: RequestContext, requirement: PrivilegeRequirement, resource?: ResourceFacts) => {
        asked.push([requirement, resource]);
        return Promise.resolve(requirement.some((all) => all.every((privilege) => granted.has(privilege))));
      },
    };
    const { context } = fakeContext(() => undefined, { authorizer: authorizer as unknown as Authorizer });
    const result = await run(source, {}, context);
    expect(result.errors).toBeUndefined();
    expect(result.data?.['me'].platformPrivileges).toEqual({
      managePolicies: false,
      manageIdentities: false,
      manageIngestion: false,
      // CREATE_TAGS or MANAGE_TAGS
      createTags: true,
      manageTags: true,
      viewAnalytics: false,
      // An application is managed with the generic entity privileges: EDIT_ENTITY and DELETE_ENTITY.
      manageApplications: true,
      generatePersonalAccessTokens: true,
    });
    expect(asked).toContainEqual([manageRequirement('corpGroup'), { type: 'corpGroup' }]);
    expect(asked).toContainEqual([[['CREATE_TAGS'], ['MANAGE_TAGS']], undefined]);
    expect(manageRequirement('dataHubPolicy')).toEqual([['MANAGE_POLICIES']]);
  });
});

describe('listAccessTokens', () => {
  const token = (id: string, actor: string, expiresAt: number | null, name = id) => ({
    id,
    name,
    actorUrn: actor,
    ownerUrn: actor,
    createdAt: 10,
    expiresAt,
  });
  const tokens = [
    token('a', 'urn:li:corpuser:jdoe', 100),
    token('b', 'urn:li:corpuser:datahub', null, 'forever'),
    token('c', 'urn:li:corpuser:jdoe', 300, 'ingestion'),
  ];
  const source = `query($input: ListAccessTokenInput!) { listAccessTokens(input: $input) { start count total tokens { urn type id name description actorUrn ownerUrn owner { urn } createdAt expiresAt } } }`;

  it('lists what the token routes show the caller, latest expiry first, never-expiring last, paged', async () => {
    const { context, calls } = fakeContext(() => ({ total: 3, tokens }));
    const result = await run(source, { input: { start: 0, count: 2 } }, context);
    expect(result.errors).toBeUndefined();
    expect(result.data?.['listAccessTokens']).toEqual({
      start: 0,
      count: 2,
      total: 3,
      tokens: [
        {
          urn: 'urn:li:dataHubAccessToken:c',
          type: 'ACCESS_TOKEN',
          id: 'c',
          name: 'ingestion',
          description: null,
          actorUrn: 'urn:li:corpuser:jdoe',
          ownerUrn: 'urn:li:corpuser:jdoe',
          owner: { urn: 'urn:li:corpuser:jdoe' },
          createdAt: 10,
          expiresAt: 300,
        },
        expect.objectContaining({ id: 'a', expiresAt: 100 }),
      ],
    });
    expect(calls).toEqual([{ method: 'GET', resource: '/openapi/v1/tokens' }]);
    const second = await run(source, { input: { start: 2, count: 2 } }, context);
    expect(second.data?.['listAccessTokens'].tokens).toEqual([expect.objectContaining({ id: 'b', expiresAt: null })]);
  });

  it('narrows by filters on the metadata (the UI’s ownerUrn), and refuses a field tokens do not have', async () => {
    const { context } = fakeContext(() => ({ total: 3, tokens }));
    const own = await run(
      source,
      { input: { filters: [{ field: 'ownerUrn', values: ['urn:li:corpuser:jdoe'] }] } },
      context,
    );
    expect(tokenIds(own)).toEqual(['c', 'a']);
    const named = await run(
      source,
      {
        input: {
          filters: [
            { field: 'name', value: 'INGEST', condition: 'START_WITH' },
            { field: 'expiresAt', condition: 'EXISTS' },
          ],
        },
      },
      context,
    );
    expect(tokenIds(named)).toEqual(['c']);
    const bad = await run(source, { input: { filters: [{ field: 'secret', values: ['x'] }] } }, context);
    expect(bad.errors?.[0]?.message).toContain('Access tokens cannot be filtered on secret');
  });
});
