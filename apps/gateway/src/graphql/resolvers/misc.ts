import { apiPrivileges, PlatformPrivilege, type PrivilegeRequirement } from '@strata/auth';
import { BadGatewayError, BadRequestError } from '@strata/model';
import type { GraphqlContext, LoadedEntity } from '../context';
import { entityRef, type EntityRef, type ResolverMap } from '../schema';
import {
  filterGroupsOf,
  pageArgument,
  queryTextOf,
  restFilterOf,
  type FacetFilterInput,
  type SortCriterionInput,
} from './search-inputs';
import { resultEntity, type RestSearchResult } from './search-results';
import { callAction, knownEntityNames } from './search-scope';

/**
 * The root queries around the catalog: `listIngestionSources` (with each source's executions), `appConfig`, `me`
 * and `listAccessTokens`. Reads go through the same routes as REST, as the caller.
 */

interface ListIngestionSourcesInput {
  readonly start?: number | null;
  readonly count?: number | null;
  readonly query?: string | null;
  readonly filters?: readonly FacetFilterInput[] | null;
  readonly sort?: SortCriterionInput | null;
}

interface ListAccessTokenInput {
  readonly start?: number | null;
  readonly count?: number | null;
  readonly filters?: readonly FacetFilterInput[] | null;
}

/** An access token's metadata as the token routes answer it. */
export interface TokenMetadata {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly actorUrn: string;
  readonly ownerUrn: string;
  readonly createdAt: number;
  readonly expiresAt?: number | null;
}

/** DataHub's page size of these lists when a query names none. */
const DEFAULT_LIST_COUNT = 20;
/** DataHub's page size of a source's executions when the field names none. */
const DEFAULT_EXECUTIONS_COUNT = 10;

const INGESTION_SOURCE = 'dataHubIngestionSource';
const EXECUTION_REQUEST = 'dataHubExecutionRequest';
const ACCESS_TOKEN = 'dataHubAccessToken';

export const miscResolvers: ResolverMap = {
  Query: {
    listIngestionSources: (_source, args: { input: ListIngestionSourcesInput }, context: GraphqlContext) =>
      listIngestionSources(context, args.input),
    appConfig: () => appConfig(),
    me: (_source, _args, context: GraphqlContext) => me(context),
    listAccessTokens: (_source, args: { input: ListAccessTokenInput }, context: GraphqlContext) =>
      listAccessTokens(context, args.input),
  },
  IngestionSource: {
    executions: (
      source: { urn: string },
      args: { start?: number | null; count?: number | null },
      context: GraphqlContext,
    ) => executionsOf(context, source.urn, args),
  },
};

/**
 * The ingestion sources the catalog holds (Strata runs none itself: these are the `dataHubIngestionSource` entities
 * written to it), searched as DataHub lists them: `query` over their names, `filters` (one AND group), `sort`, a page.
 * None is an empty page. With authentication on, the caller needs MANAGE_INGESTION, as in DataHub.
 */
async function listIngestionSources(context: GraphqlContext, input: ListIngestionSourcesInput) {
  const start = pageArgument(input.start, 0, 'start');
  const count = pageArgument(input.count, DEFAULT_LIST_COUNT, 'count');
  if (context.authorizer !== undefined) {
    await context.authorizer.require(context.request, {
      requirement: [[PlatformPrivilege.MANAGE_INGESTION]],
      message: 'You are not authorized to list ingestion sources. Please contact your DataHub administrator.',
    });
  }
  const result = await callAction<RestSearchResult>(context, {
    method: 'POST',
    resource: '/entities',
    action: 'search',
    body: {
      input: queryTextOf(input.query),
      entity: INGESTION_SOURCE,
      start,
      count,
      filter: restFilterOf(filterGroupsOf(input.filters, null, knownEntityNames(context))),
      sortCriteria:
        input.sort === null || input.sort === undefined
          ? []
          : [{ field: input.sort.field, order: input.sort.sortOrder }],
      searchFlags: { skipHighlighting: true, skipAggregates: true },
    },
  });
  const loaded = await context.entities.loadMany(result.entities.map((hit) => hit.entity));
  return {
    start: result.from ?? start,
    count: result.pageSize,
    total: result.numEntities,
    ingestionSources: loaded.flatMap((entity) =>
      entity === null || entity instanceof Error ? [] : (ingestionSourceOf(entity) ?? []),
    ),
  };
}

/** DataHub's `IngestionSource` of a source's `dataHubIngestionSourceInfo`; undefined when it has none (deleted). */
export function ingestionSourceOf(entity: LoadedEntity): Record<string, unknown> | undefined {
  const info = entity.aspects['dataHubIngestionSourceInfo']?.value;
  if (info === undefined) return undefined;
  const config = (info['config'] ?? {}) as Record<string, unknown>;
  return {
    __urn: entity.urn,
    urn: entity.urn,
    name: info['name'],
    type: info['type'],
    platform: info['platform'] ?? null,
    config: {
      __urn: entity.urn,
      recipe: config['recipe'],
      version: config['version'] ?? null,
      // DataHub runs a source without an executor named on its `default` executor.
      executorId: config['executorId'] ?? 'default',
      debugMode: config['debugMode'] ?? null,
      extraArgs: config['extraArgs'] ?? null,
    },
  };
}

/** A source's execution requests, newest first (by request time), as DataHub pages them. */
async function executionsOf(
  context: GraphqlContext,
  urn: string,
  args: { start?: number | null; count?: number | null },
) {
  const start = pageArgument(args.start, 0, 'start');
  const count = pageArgument(args.count, DEFAULT_EXECUTIONS_COUNT, 'count');
  const result = await callAction<RestSearchResult>(context, {
    method: 'POST',
    resource: '/entities',
    action: 'filter',
    body: {
      entity: EXECUTION_REQUEST,
      filter: { or: [{ and: [{ field: 'ingestionSource', values: [urn], condition: 'EQUAL', negated: false }] }] },
      sortCriteria: [{ field: 'requestTimeMs', order: 'DESCENDING' }],
      start,
      count,
    },
  });
  return {
    start: result.from ?? start,
    count: result.pageSize,
    total: result.numEntities,
    executionRequests: result.entities.map((hit) => executionRequestOf(hit.entity)),
  };
}

/**
 * An execution request: a reference to its entity, with its fields read from its aspects when asked for (DataHub's
 * mapping: `input` from `dataHubExecutionRequestInput`, `result` from `dataHubExecutionRequestResult`).
 */
export function executionRequestOf(urn: string): EntityRef & Record<string, unknown> {
  const aspect = async (context: GraphqlContext, name: string) =>
    (await context.entities.load(urn))?.aspects[name]?.value;
  return {
    ...resultEntity(urn),
    id: urn.slice(`urn:li:${EXECUTION_REQUEST}:`.length),
    input: async (_source: unknown, _args: unknown, context: GraphqlContext) => {
      const value = await aspect(context, 'dataHubExecutionRequestInput');
      return value === undefined ? null : { __urn: urn, ...value, arguments: value['args'] ?? null };
    },
    result: async (_source: unknown, _args: unknown, context: GraphqlContext) => {
      const value = await aspect(context, 'dataHubExecutionRequestResult');
      return value === undefined ? null : { __urn: urn, ...value };
    },
  };
}

/** The deployment's client-facing configuration: the DataHub version it offers, no telemetry, no semantic search. */
function appConfig() {
  return {
    appVersion: async (_source: unknown, _args: unknown, context: GraphqlContext) => {
      const config = (await context.call({ method: 'GET', resource: '/config' }, context.request)) as {
        versions?: Record<string, { version?: string }>;
      };
      return config.versions?.['acryldata/datahub']?.version ?? null;
    },
    telemetryConfig: { enableThirdPartyLogging: false },
    semanticSearchConfig: { enabled: false, enabledEntities: [], embeddingConfig: null },
  };
}

/**
 * What each platform privilege `me` reports takes (DataHub's checks, privilege by privilege): privileges held on the
 * platform, or — for `manages` — the right to manage entities of those types (their UPDATE and DELETE privileges,
 * checked on the type as DataHub checks it), each type.
 */
type PrivilegeCheck = { readonly requirement: PrivilegeRequirement } | { readonly manages: readonly string[] };

const PLATFORM_PRIVILEGES: Readonly<Record<string, PrivilegeCheck>> = {
  viewAnalytics: { requirement: apiPrivileges('ANALYTICS', 'READ') },
  managePolicies: { manages: ['dataHubPolicy'] },
  manageIdentities: { manages: ['corpuser', 'corpGroup'] },
  generatePersonalAccessTokens: anyOf('GENERATE_PERSONAL_ACCESS_TOKENS'),
  manageDomains: anyOf('MANAGE_DOMAINS'),
  manageIngestion: anyOf('MANAGE_INGESTION'),
  manageSecrets: anyOf('MANAGE_SECRETS'),
  manageTokens: anyOf('MANAGE_ACCESS_TOKENS'),
  viewTests: anyOf('VIEW_TESTS'),
  manageTests: anyOf('MANAGE_TESTS'),
  manageGlossaries: anyOf('MANAGE_GLOSSARIES'),
  manageDocuments: anyOf('MANAGE_DOCUMENTS'),
  manageUserCredentials: anyOf('MANAGE_USER_CREDENTIALS'),
  createDomains: anyOf('CREATE_DOMAINS', 'MANAGE_DOMAINS'),
  createTags: anyOf('CREATE_TAGS', 'MANAGE_TAGS'),
  manageTags: anyOf('MANAGE_TAGS'),
  viewManageTags: anyOf('VIEW_MANAGE_TAGS'),
  manageGlobalViews: anyOf('MANAGE_GLOBAL_VIEWS'),
  manageGlobalSettings: anyOf('MANAGE_GLOBAL_SETTINGS'),
  manageOwnershipTypes: anyOf('MANAGE_GLOBAL_OWNERSHIP_TYPES'),
  manageGlobalAnnouncements: anyOf('MANAGE_GLOBAL_ANNOUNCEMENTS'),
  createBusinessAttributes: anyOf('CREATE_BUSINESS_ATTRIBUTE', 'MANAGE_BUSINESS_ATTRIBUTE'),
  manageBusinessAttributes: anyOf('MANAGE_BUSINESS_ATTRIBUTE'),
  manageStructuredProperties: { manages: ['structuredProperty'] },
  viewStructuredPropertiesPage: anyOf('VIEW_STRUCTURED_PROPERTIES_PAGE'),
  manageApplications: { manages: ['application'] },
  manageFeatures: anyOf('MANAGE_FEATURES'),
  manageHomePageTemplates: anyOf('MANAGE_HOME_PAGE_TEMPLATES'),
  manageServiceAccounts: anyOf('MANAGE_SERVICE_ACCOUNTS'),
};

function anyOf(...privileges: string[]): PrivilegeCheck {
  return { requirement: privileges.map((privilege) => [privilege]) };
}

/** DataHub's MANAGE of an entity type: its UPDATE and its DELETE privileges both held (an AND of two ORs). */
export function manageRequirement(entityType: string): PrivilegeRequirement {
  const update = apiPrivileges('ENTITY', 'UPDATE', entityType);
  const remove = apiPrivileges('ENTITY', 'DELETE', entityType);
  return update.flatMap((one) => remove.map((other) => [...new Set([...one, ...other])]));
}

/**
 * The caller and what the platform lets them do. With authentication off every privilege is held — DataHub then runs
 * each request as its system actor, which may do anything.
 */
async function me(context: GraphqlContext) {
  const corpUser = entityRef(context.request.actor);
  if (corpUser === undefined) throw new BadGatewayError(`The caller ${context.request.actor} is no URN`);
  const authorizer = context.authorizer;
  const held = async (check: PrivilegeCheck): Promise<boolean> => {
    if (authorizer === undefined || !authorizer.enabled) return true;
    if ('requirement' in check) return authorizer.allows(context.request, check.requirement);
    const each = await Promise.all(
      check.manages.map((type) => authorizer.allows(context.request, manageRequirement(type), { type })),
    );
    return each.every(Boolean);
  };
  authorizer?.requireCaller(context.request, false);
  const entries = await Promise.all(
    Object.entries(PLATFORM_PRIVILEGES).map(async ([name, check]) => [name, await held(check)] as const),
  );
  return { corpUser, platformPrivileges: Object.fromEntries(entries) };
}

/**
 * Access tokens' metadata, as `GET /openapi/v1/tokens` shows them to the caller (their own, or everyone's with
 * MANAGE_ACCESS_TOKENS), narrowed by `filters` (an AND of criteria on the metadata's fields), newest expiry first as
 * DataHub sorts them, paged.
 */
async function listAccessTokens(context: GraphqlContext, input: ListAccessTokenInput) {
  const start = pageArgument(input.start, 0, 'start');
  const count = pageArgument(input.count, DEFAULT_LIST_COUNT, 'count');
  const [criteria = []] = filterGroupsOf(input.filters, null, knownEntityNames(context));
  const answer = (await context.call({ method: 'GET', resource: '/openapi/v1/tokens' }, context.request)) as {
    tokens?: readonly TokenMetadata[];
  };
  const tokens = (answer.tokens ?? [])
    .filter((token) => criteria.every((criterion) => tokenMatches(token, criterion)))
    .sort((a, b) => (b.expiresAt ?? -Infinity) - (a.expiresAt ?? -Infinity) || (a.id < b.id ? -1 : 1));
  return {
    start,
    count,
    total: tokens.length,
    tokens: tokens.slice(start, start + count).map(tokenOf),
  };
}

const TOKEN_FIELDS = new Set(['id', 'name', 'description', 'actorUrn', 'ownerUrn', 'createdAt', 'expiresAt']);

/** Whether a token passes one criterion: EQUAL/IN exactly, CONTAIN/START_WITH/END_WITH ignoring case, EXISTS. */
function tokenMatches(
  token: TokenMetadata,
  criterion: { field: string; values: readonly string[]; condition: string; negated: boolean },
): boolean {
  const field = criterion.field.replace(/\.keyword$/, '');
  if (!TOKEN_FIELDS.has(field)) {
    throw new BadRequestError(
      `Access tokens cannot be filtered on ${criterion.field} (one of ${[...TOKEN_FIELDS].join(', ')})`,
    );
  }
  const raw = (token as unknown as Record<string, unknown>)[field];
  const value = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : undefined;
  const lower = value?.toLowerCase();
  const holds = ((): boolean => {
    switch (criterion.condition) {
      case 'EXISTS':
        return value !== undefined;
      case 'EQUAL':
      case 'IN':
        return criterion.values.length === 0 || criterion.values.some((wanted) => wanted === value);
      case 'CONTAIN':
        return criterion.values.some((wanted) => lower?.includes(wanted.toLowerCase()) === true);
      case 'START_WITH':
        return criterion.values.some((wanted) => lower?.startsWith(wanted.toLowerCase()) === true);
      case 'END_WITH':
        return criterion.values.some((wanted) => lower?.endsWith(wanted.toLowerCase()) === true);
      default:
        throw new BadRequestError(`Access tokens cannot be filtered with ${criterion.condition}`);
    }
  })();
  return holds !== criterion.negated;
}

/** DataHub's `AccessTokenMetadata`: the token's entity, with the metadata the token routes answer. */
export function tokenOf(token: TokenMetadata): EntityRef & Record<string, unknown> {
  return {
    ...resultEntity(`urn:li:${ACCESS_TOKEN}:${token.id}`),
    id: token.id,
    name: token.name,
    description: token.description ?? null,
    actorUrn: token.actorUrn,
    ownerUrn: token.ownerUrn,
    owner: token.ownerUrn,
    createdAt: token.createdAt,
    expiresAt: token.expiresAt ?? null,
  };
}
