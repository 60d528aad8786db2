import { z } from 'zod';
import { apiPrivileges, type ApiOperation, type ResourceFacts } from '@strata/auth';
import {
  booleanParam,
  defineRoute,
  openapiErrorBody,
  toClientError,
  type RequestContext,
  type Route,
  type RouteCaller,
  type RouteResponse,
} from '@strata/http';
import {
  BadGatewayError,
  BadRequestError,
  errorFromCode,
  ForbiddenError,
  NotFoundError,
  StrataError,
  TIME_RANGE_HEADERS,
  validateProposal,
  type AspectSpec,
  type EntityRegistry,
  type EntitySpec,
  type ValidatedProposal,
} from '@strata/model';
import { TimeSlice } from '@strata/timing';
import type { Authorizer } from '../auth/authorizer';
import {
  aspectNamed,
  aspectProposal,
  asksForIndexing,
  batchGetItems,
  checkScrollSort,
  createChangeType,
  entityOfPath,
  entityPathOf,
  entitySpecDto,
  entitySpecsPage,
  entityUrnOf,
  IF_VERSION_MATCH,
  NOT_FOUND_REASON,
  requestedVersion,
  selectAspects,
  storedAspectsOf,
  v1WriteProposals,
  v2Entity,
  v3Aspect,
  v3Entity,
  v3WriteProposals,
  withSoftDeleted,
  type BatchGetItem,
  type LocatedProposal,
  type RawProposal,
  type StoredAspect,
} from '../domain/openapi-entities';
import type { ProposalSubmitter } from '../ingest/proposal-submitter';
import { randomHex, traceparentOf, writeTraceIdOf, type RandomHex } from '../ingest/write-trace-id';
import { SYNC_INDEX_HEADER } from './ingest-routes';

export interface OpenApiEntityRouteOptions {
  readonly registry: EntityRegistry;
  readonly submitter: ProposalSubmitter;
  /** Calls the routes of the services behind the gateway: the writer's reads, the search, the timeseries values. */
  readonly call: RouteCaller;
  readonly maxAspectBytes: number;
  /** Most aspects one write request may carry (the `ingestProposalBatch` limit). */
  readonly maxBatchProposals: number;
  /**
   * Checks DataHub's ENTITY privileges of a read on the entities it names, as DataHub's controllers do. Absent, or off
   * with authentication: reads are not checked (writes always go through the submitter's checks).
   */
  readonly authorizer?: Pick<Authorizer, 'enabled' | 'denied'>;
  /** The clock a new trace id starts with (DataHub's trace ids begin with the time of the write). */
  readonly now: () => number;
  /** The random halves of trace and span ids. Default: the system's random bytes. */
  readonly random?: RandomHex;
}

/** URNs per batch read of the writer: short enough for a request line a service behind the gateway accepts. */
const READ_CHUNK = 50;

const ENTITY = '/openapi/v3/entity';
const ENTITY_OF_TYPE = `${ENTITY}/:entityName`;
const urnKey = {
  name: 'entityUrn',
  description:
    'Entity URN, raw or percent-encoded; followed by `/{aspectName}` to address one aspect (e.g. `…/urn:li:corpuser:jdoe/corpUserInfo`).',
};

/** A boolean query parameter with its default. */
const flag = (fallback: boolean) =>
  booleanParam()
    .optional()
    .transform((value) => value ?? fallback);

/** A list of names, repeated (`aspects=a&aspects=b`) or comma-separated (`aspects=a,b`), as Spring binds them. */
const nameList = z.preprocess((value) => {
  const values: unknown[] = Array.isArray(value) ? (value as unknown[]) : value === undefined ? [] : [value];
  return values.flatMap((item) =>
    typeof item === 'string'
      ? item
          .split(',')
          .map((part) => part.trim())
          .filter((part) => part !== '')
      : [item],
  );
}, z.array(z.string()));

const countParam = (fallback: number) =>
  z.coerce
    .number({ error: 'count must be an integer' })
    .int('count must be an integer')
    .min(0, 'count must be ≥ 0')
    .default(fallback);

/** The query parameters every scroll takes (DataHub's names and defaults). */
const scrollQuery = {
  count: countParam(10),
  query: z.string().default('*'),
  scrollId: z.string().optional(),
  sort: z.string().default('urn'),
  sortCriteria: nameList.optional(),
  sortOrder: z
    .enum(['ASCENDING', 'DESCENDING'], { error: 'sortOrder must be ASCENDING or DESCENDING' })
    .default('ASCENDING'),
  systemMetadata: flag(false),
  skipCache: flag(false),
  skipAggregation: flag(true),
  includeSoftDelete: flag(false),
  scrollIdPerEntity: flag(false),
  sliceId: z.string().optional(),
  sliceMax: z.string().optional(),
  pitKeepAlive: z.string().optional(),
};

const scrollDescription =
  'Answers `{entities: [{urn, <aspectName>: {value, systemMetadata?}}], scrollId, totalCount}`: pass `scrollId` back ' +
  'for the next page; it is null on the last one. Entities come in URN order (type by type across types), from the ' +
  'search index, which shows a write once indexed, and a scroll reaches every match; their aspects are read ' +
  'from the primary store. Soft-deleted entities are left out unless `includeSoftDelete`. Sorting is by `urn`, ' +
  'ascending, only (another field or order is refused), as are `sliceId`/`sliceMax`; `skipCache`, `skipAggregation`, ' +
  '`scrollIdPerEntity` and `pitKeepAlive` are accepted and change nothing.';

/** The body of a scroll across entities: DataHub's `GenericEntityScrollRequestBodyV3`. */
const scrollBody = z
  .object({
    entities: z.array(z.string().min(1)).nullish(),
    aspects: z.array(z.string().min(1)).nullish(),
    filter: z.unknown().optional(),
    sortCriteria: z
      .array(z.object({ field: z.string().min(1), order: z.enum(['ASCENDING', 'DESCENDING']).default('ASCENDING') }))
      .nullish(),
  })
  .nullish()
  .transform((body) => body ?? {});

const writeQuery = (asyncByDefault: boolean) => ({
  async: flag(asyncByDefault),
  systemMetadata: flag(false),
  createIfEntityNotExists: flag(false),
  createIfNotExists: flag(false),
});

/**
 * DataHub's OpenAPI entity endpoints, as its Python SDK (`DataHubClient`, `DataHubGraph.get_entities`,
 * `get_entities_v2`, `scroll_entities`, the REST emitter in OpenAPI mode) and its Java emitter call them: writes
 * become proposals on the caller's behalf, through the same validation, authorization and waiting as
 * `ingestProposal`; reads gather the writer's batch reads, the search and the timeseries values.
 */
export function openApiEntityRoutes(options: OpenApiEntityRouteOptions): Route[] {
  const { registry, call } = options;
  const random = options.random ?? randomHex;

  // --- Authorization of reads ---------------------------------------------------------------------------------------

  /** DataHub's ENTITY privilege of `operation` on each resource (one question per entity type), or its 403. */
  const requireEntities = async (
    context: RequestContext,
    operation: ApiOperation,
    resources: readonly ResourceFacts[],
  ): Promise<void> => {
    const authorizer = options.authorizer;
    if (authorizer === undefined || !authorizer.enabled || resources.length === 0) return;
    for (const type of new Set(resources.map((resource) => resource.type))) {
      const ofType = resources.filter((resource) => resource.type === type);
      if ((await authorizer.denied(context, apiPrivileges('ENTITY', operation, type), ofType)).length > 0) {
        throw new ForbiddenError(`${context.actor} is unauthorized to ${operation} entities.`);
      }
    }
  };
  const ofUrns = (urns: readonly string[]): ResourceFacts[] =>
    urns.map((urn) => ({ type: /^urn:li:([^:]+):/.exec(urn)?.[1] ?? '', urn }));

  // --- Reads through the services behind the gateway ----------------------------------------------------------------

  /** The stored latest versioned aspects of the URNs (only `names` when given), from the writer's batch read. */
  const storedLatest = async (
    context: RequestContext,
    urns: readonly string[],
    names: readonly string[] | undefined,
  ): Promise<Map<string, Map<string, StoredAspect>>> => {
    const found = new Map<string, Map<string, StoredAspect>>();
    for (let first = 0; first < urns.length; first += READ_CHUNK) {
      const ids = urns.slice(first, first + READ_CHUNK);
      const answer = await call(
        { method: 'GET', resource: '/entitiesV2', query: { ids, ...(names === undefined ? {} : { aspects: names }) } },
        context,
      );
      let read: Map<string, ReadonlyMap<string, StoredAspect>>;
      try {
        read = storedAspectsOf(answer);
      } catch (error) {
        throw new BadGatewayError(`The metadata writer answered a batch read in an unexpected shape: ${String(error)}`);
      }
      for (const [urn, aspects] of read) found.set(urn, new Map(aspects));
    }
    return found;
  };

  /** One earlier version of an aspect (`/aspects`), or undefined when there is none. */
  const storedVersion = async (
    context: RequestContext,
    urn: string,
    aspect: AspectSpec,
    version: number,
  ): Promise<StoredAspect | undefined> => {
    let answer: unknown;
    try {
      answer = await call(
        { method: 'GET', resource: '/aspects', key: urn, query: { aspect: aspect.name, version: String(version) } },
        context,
      );
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
    const value = valueOf(valueOf(answer, 'aspect'), aspect.recordName);
    if (!isObject(value))
      throw new BadGatewayError('The metadata writer answered a version read in an unexpected shape');
    return { value };
  };

  /**
   * The latest value of a timeseries aspect (with `endTimeMillis`, the latest at or before it: DataHub reads a
   * timeseries "version" so), or undefined when there is none.
   */
  const timeseriesValue = async (
    context: RequestContext,
    urn: string,
    entity: EntitySpec,
    aspect: AspectSpec,
    endTimeMillis: number,
  ): Promise<StoredAspect | undefined> => {
    const answer = await call(
      {
        method: 'POST',
        resource: '/aspects',
        action: 'getTimeseriesAspectValues',
        body: {
          urn,
          entity: entity.name,
          aspect: aspect.name,
          ...(endTimeMillis === 0 ? { latestValue: true } : { endTimeMillis, limit: 1 }),
        },
      },
      context,
    );
    const values = valueOf(valueOf(answer, 'value'), 'values');
    if (!Array.isArray(values)) throw new BadGatewayError('The timeseries indexer answered in an unexpected shape');
    const first: unknown = values[0];
    if (first === undefined) return undefined;
    const text = valueOf(valueOf(first, 'aspect'), 'value');
    const systemMetadata = valueOf(first, 'systemMetadata');
    let value: unknown;
    try {
      value = typeof text === 'string' ? JSON.parse(text) : undefined;
    } catch {
      value = undefined;
    }
    if (!isObject(value)) throw new BadGatewayError('The timeseries indexer answered a value that is not an object');
    return {
      value,
      ...(isObject(systemMetadata) ? { systemMetadata } : {}),
    };
  };

  /**
   * The aspects each item asks for (every stored versioned aspect when it names none; a timeseries aspect only when
   * named), in the registry's order: latest versions from one batch read, earlier versions and timeseries values one
   * by one.
   */
  const readItems = async (
    context: RequestContext,
    entity: EntitySpec,
    items: readonly BatchGetItem[],
  ): Promise<Map<string, [string, StoredAspect][]>> => {
    const everything = items.filter((item) => item.aspects.length === 0).map((item) => item.urn);
    const named = items.filter((item) => item.aspects.length > 0);
    const latestNames = [
      ...new Set(
        named.flatMap((item) =>
          item.aspects
            .filter((each) => each.spec.kind === 'versioned' && each.version === 0)
            .map((each) => each.spec.name),
        ),
      ),
    ];
    const all = await storedLatest(context, everything, undefined);
    const some =
      named.length === 0
        ? new Map<string, Map<string, StoredAspect>>()
        : await storedLatest(
            context,
            named.map((item) => item.urn),
            latestNames.length === 0 ? [entity.keyAspect.name] : latestNames,
          );
    const answers = new Map<string, [string, StoredAspect][]>();
    for (const item of items) {
      if (item.aspects.length === 0) {
        answers.set(item.urn, selectAspects(entity, all.get(item.urn) ?? new Map(), undefined));
        continue;
      }
      const stored = new Map<string, StoredAspect>();
      const latest = some.get(item.urn);
      for (const { spec, version } of item.aspects) {
        let aspect: StoredAspect | undefined;
        if (spec.kind === 'timeseries') aspect = await timeseriesValue(context, item.urn, entity, spec, version);
        else if (version === 0) aspect = latest?.get(spec.name);
        else aspect = await storedVersion(context, item.urn, spec, version);
        if (aspect !== undefined) stored.set(spec.name, aspect);
      }
      answers.set(
        item.urn,
        selectAspects(
          entity,
          stored,
          item.aspects.map((each) => each.spec),
        ),
      );
    }
    return answers;
  };

  /** The named aspects of one entity, or all of them. */
  const readEntity = (context: RequestContext, entity: EntitySpec, urn: string, aspects: readonly AspectSpec[]) =>
    readItems(context, entity, [{ urn, aspects: aspects.map((spec) => ({ spec, version: 0 })) }]).then(
      (answers) => answers.get(urn) ?? [],
    );

  // --- Writes ---------------------------------------------------------------------------------------------------------

  /** Validates every proposal before any is published, naming each problem with where it came from. */
  const validateAll = async (located: readonly LocatedProposal[]): Promise<ValidatedProposal[]> => {
    if (located.length > options.maxBatchProposals) {
      throw new BadRequestError(
        `A request may write at most ${options.maxBatchProposals} aspects; this one writes ${located.length}`,
      );
    }
    const problems: StrataError[] = [];
    const messages: string[] = [];
    const valid: ValidatedProposal[] = [];
    const slice = new TimeSlice();
    for (const { proposal, where } of located) {
      try {
        valid.push(validateProposal(registry, proposal, { maxAspectBytes: options.maxAspectBytes }));
      } catch (error) {
        if (!(error instanceof StrataError)) throw error;
        problems.push(error);
        messages.push(`${where}: ${error.message}`);
      }
      await slice.pause();
    }
    const first = problems[0];
    if (first !== undefined) throw errorFromCode(first.code, messages.join('\n'));
    return valid;
  };

  /**
   * Publishes validated proposals as the caller's writes, through the same checks as `ingestProposal`. Waits for their
   * outcomes unless `async`, and for the read models when asked (the header, or `X-DataHub-Sync-Index-Update` among a
   * proposal's headers), which implies waiting. The proposals carry the write's trace id — the request's own W3C one,
   * or one made as `ingestProposal` makes it — which the answer's `traceparent` names for the trace API. Answers
   * whether it waited, the outcomes, and that header.
   */
  const submit = async (
    context: RequestContext,
    proposals: readonly ValidatedProposal[],
    raw: readonly RawProposal[],
    asyncFlag: boolean,
  ) => {
    const waitForIndexing = context.header(SYNC_INDEX_HEADER)?.toLowerCase() === 'true' || asksForIndexing(raw);
    const wait = waitForIndexing || !asyncFlag;
    const traceId = writeTraceIdOf(context.traceId, options.now(), random);
    const result =
      proposals.length === 0
        ? { outcomes: [] }
        : await options.submitter.submit(proposals, {
            ...context,
            traceId,
            authorization: { kind: 'caller', context },
            wait,
            waitForIndexing,
          });
    return { wait, outcomes: result.outcomes, headers: { traceparent: traceparentOf(traceId, random) } };
  };

  /**
   * The answer of a write: each entity written, `{urn, <aspectName>: {value, systemMetadata?}}`, in request order —
   * the values written, or for a patch the value it produced (read back once waited for; the patch as sent otherwise).
   */
  const writeAnswer = async (
    context: RequestContext,
    proposals: readonly ValidatedProposal[],
    waited: boolean,
    withSystemMetadata: boolean,
  ): Promise<Record<string, unknown>[]> => {
    const patched = waited
      ? proposals.filter((proposal) => proposal.changeType === 'PATCH')
      : ([] as ValidatedProposal[]);
    const produced =
      patched.length === 0
        ? new Map<string, Map<string, StoredAspect>>()
        : await storedLatest(
            context,
            [...new Set(patched.map((proposal) => proposal.urn.toString()))],
            [...new Set(patched.map((proposal) => proposal.aspect.name))],
          );
    const entities = new Map<string, Record<string, unknown>>();
    for (const proposal of proposals) {
      const urn = proposal.urn.toString();
      const entity = entities.get(urn) ?? { urn };
      entities.set(urn, entity);
      const value =
        proposal.changeType === 'PATCH'
          ? (produced.get(urn)?.get(proposal.aspect.name)?.value ?? proposal.patch?.document)
          : proposal.value;
      entity[proposal.aspect.name] = {
        value,
        ...(withSystemMetadata && proposal.systemMetadata !== undefined
          ? { systemMetadata: proposal.systemMetadata }
          : {}),
      };
    }
    return [...entities.values()];
  };

  /** A DELETE proposal of `aspect` (of a timeseries aspect: its values in the time range). */
  const deletion = (entity: EntitySpec, urn: string, aspect: AspectSpec, headers?: Record<string, string>) =>
    validateProposal(registry, {
      entityType: entity.name,
      entityUrn: urn,
      changeType: 'DELETE',
      aspectName: aspect.name,
      ...(headers === undefined ? {} : { headers }),
    });

  /**
   * The proposals removing `aspects` of an entity: a versioned aspect whole, a timeseries aspect's latest value (as
   * DataHub does), the entity whole when the key aspect is among them.
   */
  const deletionsOf = async (
    context: RequestContext,
    entity: EntitySpec,
    urn: string,
    aspects: readonly AspectSpec[],
  ): Promise<ValidatedProposal[]> => {
    if (aspects.some((aspect) => aspect.isKey)) return [deletion(entity, urn, entity.keyAspect)];
    const proposals: ValidatedProposal[] = [];
    for (const aspect of aspects) {
      if (aspect.kind === 'versioned') {
        proposals.push(deletion(entity, urn, aspect));
        continue;
      }
      const latest = await timeseriesValue(context, urn, entity, aspect, 0);
      const timestamp = latest?.value['timestampMillis'];
      if (typeof timestamp !== 'number') continue;
      proposals.push(
        deletion(entity, urn, aspect, {
          [TIME_RANGE_HEADERS.from]: String(timestamp),
          [TIME_RANGE_HEADERS.until]: String(timestamp),
        }),
      );
    }
    return proposals;
  };

  // --- Scrolls --------------------------------------------------------------------------------------------------------

  interface ScrollRequest {
    readonly types: readonly EntitySpec[];
    /** Only one type was asked for (the path's), so an aspect it lacks is a 400. */
    readonly single: boolean;
    readonly aspects: readonly string[];
    readonly filter: unknown;
    readonly query: z.output<z.ZodObject<typeof scrollQuery>>;
    readonly sortFields: readonly string[];
  }

  const scroll = async (context: RequestContext, request: ScrollRequest) => {
    const { query } = request;
    if (query.sliceId !== undefined || query.sliceMax !== undefined) {
      throw new BadRequestError('Sliced scrolling (sliceId, sliceMax) is not supported: scroll in one slice');
    }
    checkScrollSort(request.sortFields, query.sortOrder);
    if (request.single) for (const type of request.types) for (const name of request.aspects) aspectNamed(type, name);
    await requireEntities(
      context,
      'READ',
      request.types.map((type) => ({ type: type.name })),
    );
    const filter = query.includeSoftDelete ? withSoftDeleted(request.filter) : request.filter;
    // The search indexer's cursor: it resumes after the last URN of a page, so a scroll reaches every match however
    // many there are, and stays valid while the catalog changes.
    const answer = await call(
      {
        method: 'POST',
        resource: '/entities',
        action: 'scrollAcrossEntities',
        body: {
          input: query.query,
          entities: request.types.map((type) => type.name),
          count: query.count,
          filter: filter ?? null,
          ...(query.scrollId === undefined || query.scrollId === '' ? {} : { scrollId: query.scrollId }),
        },
      },
      context,
    );
    const { urns, total } = searchPageOf(answer);
    await requireEntities(context, 'READ', ofUrns(urns));
    const byType = new Map<string, string[]>();
    for (const urn of urns) {
      const type = /^urn:li:([^:]+):/.exec(urn)?.[1] ?? '';
      byType.set(type, [...(byType.get(type) ?? []), urn]);
    }
    const read = new Map<string, [string, StoredAspect][]>();
    for (const [typeName, ofType] of byType) {
      const type = registry.entity(typeName);
      if (type === undefined) continue;
      const applicable = request.aspects.flatMap((name) => {
        const spec = type.aspect(name) ?? type.aspects.find((each) => each.name.toLowerCase() === name.toLowerCase());
        return spec === undefined ? [] : [spec];
      });
      // Across types, a type with none of the aspects asked for has nothing to answer.
      if (request.aspects.length > 0 && applicable.length === 0) continue;
      const answers = await readItems(
        context,
        type,
        ofType.map((urn) => ({ urn, aspects: applicable.map((spec) => ({ spec, version: 0 })) })),
      );
      for (const [urn, aspects] of answers) read.set(urn, aspects);
    }
    const entities = urns.flatMap((urn) => {
      const aspects = read.get(urn) ?? [];
      return aspects.length === 0 ? [] : [v3Entity(urn, aspects, query.systemMetadata)];
    });
    const scrollId = valueOf(valueOf(answer, 'value'), 'scrollId');
    return {
      body: {
        entities,
        scrollId: typeof scrollId === 'string' && urns.length > 0 ? scrollId : null,
        totalCount: total,
      },
    };
  };

  const entityOfParams = (params: Readonly<Record<string, string>>) =>
    entityOfPath(registry, params['entityName'] ?? '');

  // --- Routes ---------------------------------------------------------------------------------------------------------

  // Order matters: the fixed paths under /openapi/v3/entity/ come before the `{entityName}` and `{entityUrn}` ones.
  return [
    defineRoute({
      method: 'POST',
      resource: `${ENTITY}/scroll`,
      family: 'openapi',
      access: { kind: 'caller' },
      summary: 'Scroll entities of several types (every type when `entities` is absent), with their aspects.',
      description: `${scrollDescription} Body: \`{entities?, aspects?, filter?: {or: [{and: [criteria]}]}, sortCriteria?}\`. Needs DataHub's ENTITY READ privilege on the types scrolled and on each entity answered (with authentication on).`,
      query: z.object(scrollQuery),
      body: scrollBody,
      example: { query: { count: '10' }, body: { entities: ['dataset'], aspects: ['datasetProperties'] } },
      handle: async ({ query, body, context }) => {
        const types =
          body.entities === undefined || body.entities === null || body.entities.length === 0
            ? [...registry.entities()]
            : [...new Set(body.entities)].map((name) => entityOfPath(registry, name));
        return scroll(context, {
          types,
          single: false,
          aspects: body.aspects ?? [],
          filter: body.filter,
          query,
          sortFields: sortFieldsOf(query, body.sortCriteria ?? undefined),
        });
      },
    }),
    defineRoute({
      method: 'POST',
      resource: `${ENTITY_OF_TYPE}/batchGet`,
      family: 'openapi',
      access: { kind: 'caller' },
      summary: 'Read a batch of entities of one type, all their aspects or the ones named.',
      description:
        'Body: `[{urn, <aspectName>: {headers?: {"If-Version-Match": "<version>"}}}]`; an entity naming no aspect is read whole (its versioned aspects; a timeseries aspect only when named). Answers `[{urn, <aspectName>: {value, systemMetadata?, auditStamp?}}]` for the entities that have any of them, in request order; `systemMetadata=true` adds each aspect\'s system metadata and creation stamp. `If-Version-Match` reads that version (for a timeseries aspect: the latest value at or before that time). Needs DataHub\'s ENTITY READ privilege on every entity (with authentication on).',
      query: z.object({ systemMetadata: flag(false) }),
      body: z.unknown(),
      example: {
        body: [{ urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)', datasetProperties: {} }],
      },
      handle: async ({ query, body, params, context }) => {
        const entity = entityOfParams(params);
        const items = batchGetItems(entity, body);
        await requireEntities(context, 'READ', ofUrns(items.map((item) => item.urn)));
        const answers = await readItems(context, entity, items);
        return {
          body: items.flatMap((item) => {
            const aspects = answers.get(item.urn) ?? [];
            return aspects.length === 0 ? [] : [v3Entity(item.urn, aspects, query.systemMetadata)];
          }),
        };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: `${ENTITY_OF_TYPE}/scroll`,
      family: 'openapi',
      access: { kind: 'caller' },
      summary: 'Scroll the entities of one type, with their aspects.',
      description: `${scrollDescription} Body: \`{aspects?, filter?: {or: [{and: [criteria]}]}, sortCriteria?}\`. Needs DataHub's ENTITY READ privilege on the type and on each entity answered (with authentication on).`,
      query: z.object(scrollQuery),
      body: scrollBody,
      example: { query: { count: '10' }, body: { aspects: ['datasetProperties'] } },
      handle: async ({ query, body, params, context }) =>
        scroll(context, {
          types: [entityOfParams(params)],
          single: true,
          aspects: body.aspects ?? [],
          filter: body.filter,
          query,
          sortFields: sortFieldsOf(query, body.sortCriteria ?? undefined),
        }),
    }),
    defineRoute({
      method: 'GET',
      resource: ENTITY_OF_TYPE,
      family: 'openapi',
      access: { kind: 'caller' },
      summary: 'Scroll the entities of one type, with their aspects.',
      description: `${scrollDescription} \`aspects\` (or \`aspectNames\`) names the aspects to answer, repeated or comma-separated; none answers every aspect. Needs DataHub's ENTITY READ privilege on the type and on each entity answered (with authentication on).`,
      query: z.object({ ...scrollQuery, aspects: nameList.optional(), aspectNames: nameList.optional() }),
      example: { query: { count: '10', aspects: 'datasetProperties' } },
      handle: async ({ query, params, context }) =>
        scroll(context, {
          types: [entityOfParams(params)],
          single: true,
          aspects: [...new Set([...(query.aspects ?? []), ...(query.aspectNames ?? [])])],
          filter: undefined,
          query,
          sortFields: sortFieldsOf(query, undefined),
        }),
    }),
    ...(['POST', 'PATCH'] as const).map((method) =>
      defineRoute({
        method,
        resource: ENTITY_OF_TYPE,
        family: 'openapi',
        access: { kind: 'writes' },
        summary:
          method === 'POST'
            ? 'Write aspects of entities of one type (upsert, or create with createIfNotExists / createIfEntityNotExists).'
            : 'Patch aspects of entities of one type.',
        description:
          (method === 'POST'
            ? 'Body: `[{urn, <aspectName>: {value, systemMetadata?, headers?}}]`, one proposal per aspect: UPSERT, CREATE with `createIfNotExists=true`, CREATE_ENTITY with `createIfEntityNotExists=true`. '
            : "Body: `[{urn, <aspectName>: {value: <patch>, systemMetadata?, headers?}}]`, the patch a JSON Patch array or `{patch, arrayPrimaryKeys?, forceGenericPatch?}`, one PATCH proposal per aspect, applied as `ingestProposal` applies DataHub's patches. ") +
          "Every aspect is validated before any is published; the writer then applies them aspect by aspect. Asynchronous by default (`async=true`: 202 once the proposals are on the log); `async=false` answers 200 once the primary store holds them, and `X-DataHub-Sync-Index-Update: true` (as a request header, or among an aspect's `headers`) once search and relationships do too. Answers `[{urn, <aspectName>: {value, systemMetadata?}}]` — a patch's value is the value it produced when waited for, the patch otherwise — with a `traceparent` header naming the trace the proposals carry. An aspect's `If-Version-Match` header makes its write conditional.",
        query: z.object(writeQuery(true)),
        body: z.unknown(),
        example: {
          query: { async: 'false' },
          body: [
            {
              urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)',
              ...(method === 'POST'
                ? { datasetProperties: { value: { description: 'A sample table' } } }
                : {
                    globalTags: {
                      value: {
                        patch: [{ op: 'add', path: '/tags/urn:li:tag:Legacy', value: { tag: 'urn:li:tag:Legacy' } }],
                      },
                    },
                  }),
            },
          ],
        },
        handle: async ({ query, body, params, context }) => {
          const entity = entityOfParams(params);
          const located = v3WriteProposals(entity, body, method === 'PATCH' ? 'PATCH' : createChangeType(query));
          const proposals = await validateAll(located);
          const written = await submit(
            context,
            proposals,
            located.map((each) => each.proposal),
            query.async,
          );
          return {
            status: written.wait ? 200 : 202,
            body: await writeAnswer(context, proposals, written.wait, query.systemMetadata),
            headers: written.headers,
          };
        },
      }),
    ),
    defineRoute({
      method: 'GET',
      resource: ENTITY_OF_TYPE,
      key: urnKey,
      family: 'openapi',
      access: { kind: 'caller' },
      summary: 'Read an entity (`/{entityUrn}`), or one of its aspects (`/{entityUrn}/{aspectName}`).',
      description:
        "An entity answers `{urn, <aspectName>: {value, systemMetadata?, auditStamp?}}` with the aspects named in `aspects` (or `aspectNames`), or all its versioned aspects; an aspect answers `{value, systemMetadata?}`, of the version `version` or the `If-Version-Match` header asks for (default the latest; negative counts back). 404 with `Not-Found-Reason: ENTITY` when there is nothing to answer. Needs DataHub's ENTITY READ privilege on the entity (with authentication on).",
      query: z.object({
        aspects: nameList.optional(),
        aspectNames: nameList.optional(),
        systemMetadata: flag(false),
        version: z.coerce.number({ error: 'version must be an integer' }).int('version must be an integer').optional(),
      }),
      handle: async ({ query, key, params, context }) => {
        const entity = entityOfParams(params);
        const { urn, aspect } = entityPathOf(entity, key ?? '');
        await requireEntities(context, 'READ', ofUrns([urn]));
        if (aspect !== undefined) {
          const header = context.header(IF_VERSION_MATCH);
          const version =
            query.version ??
            requestedVersion(header === undefined ? undefined : { [IF_VERSION_MATCH]: header }, 'request');
          const read = await readItems(context, entity, [{ urn, aspects: [{ spec: aspect, version }] }]);
          const found = read.get(urn)?.[0]?.[1];
          if (found === undefined) {
            return notFound(`No aspect ${aspect.name} of ${urn}${version === 0 ? '' : ` at version ${version}`}`);
          }
          return { body: v3Aspect(found, query.systemMetadata) };
        }
        const names = [...new Set([...(query.aspects ?? []), ...(query.aspectNames ?? [])])];
        const aspects = await readEntity(
          context,
          entity,
          urn,
          names.map((name) => aspectNamed(entity, name)),
        );
        if (aspects.length === 0) return notFound(`No entity ${urn}`);
        return { body: v3Entity(urn, aspects, query.systemMetadata) };
      },
    }),
    defineRoute({
      method: 'HEAD',
      resource: ENTITY_OF_TYPE,
      key: urnKey,
      family: 'openapi',
      access: { kind: 'caller' },
      summary: 'Whether an entity (`/{entityUrn}`), or one of its aspects (`/{entityUrn}/{aspectName}`), exists.',
      description:
        "204 when it does, 404 when it does not; a soft-deleted entity (status removed) does not, unless `includeSoftDelete=true`. Needs DataHub's ENTITY EXISTS privilege on the entity (with authentication on).",
      query: z.object({ includeSoftDelete: flag(false) }),
      handle: async ({ query, key, params, context }) => {
        const entity = entityOfParams(params);
        const { urn, aspect } = entityPathOf(entity, key ?? '');
        await requireEntities(context, 'EXISTS', ofUrns([urn]));
        const status = entity.aspect('status');
        const wanted = [aspect ?? entity.keyAspect, ...(status === undefined ? [] : [status])];
        const read = new Map(await readEntity(context, entity, urn, wanted));
        const removed = read.get('status')?.value['removed'] === true && !query.includeSoftDelete;
        const exists = read.has((aspect ?? entity.keyAspect).name) && !removed;
        return { status: exists ? 204 : 404 };
      },
    }),
    defineRoute({
      method: 'DELETE',
      resource: ENTITY_OF_TYPE,
      key: urnKey,
      family: 'openapi',
      access: { kind: 'writes' },
      summary:
        'Delete an entity for good (`/{entityUrn}`), some of its aspects, or one aspect (`/{entityUrn}/{aspectName}`).',
      description:
        'The entity goes whole — every version of every aspect, its timeseries values, search document and edges — unless `aspects` names some (then those, the entity whole if its key aspect is among them) or `clear=true` (every stored aspect but the key: the entity stays). A timeseries aspect loses its latest value, as DataHub does. Answers 200, empty, once the writer applied it (with `X-DataHub-Sync-Index-Update: true`, once search and relationships show it), with a `traceparent` header. Each delete needs the privilege its change asks for (DELETE_ENTITY…).',
      query: z.object({ aspects: nameList.optional(), clear: flag(false) }),
      handle: async ({ query, key, params, context }) => {
        const entity = entityOfParams(params);
        const { urn, aspect } = entityPathOf(entity, key ?? '');
        let aspects: AspectSpec[];
        if (aspect !== undefined) aspects = [aspect];
        else if (query.clear) {
          // Every stored aspect but the key: DataHub removes each aspect of the entity and keeps it.
          const stored = await readEntity(context, entity, urn, []);
          aspects = stored.flatMap(([name]) => {
            const spec = entity.aspect(name);
            return spec === undefined || spec.isKey ? [] : [spec];
          });
        } else if ((query.aspects ?? []).length > 0)
          aspects = (query.aspects ?? []).map((name) => aspectNamed(entity, name));
        else aspects = [entity.keyAspect];
        const proposals = await deletionsOf(context, entity, urn, aspects);
        const written = await submit(context, proposals, [], false);
        return { headers: written.headers };
      },
    }),
    ...(['POST', 'PATCH'] as const).map((method) =>
      defineRoute({
        method,
        resource: ENTITY_OF_TYPE,
        key: urnKey,
        family: 'openapi',
        access: { kind: 'writes' },
        summary:
          method === 'POST'
            ? 'Write one aspect (`/{entityUrn}/{aspectName}`): create it, by default.'
            : 'Patch one aspect (`/{entityUrn}/{aspectName}`).',
        description:
          (method === 'POST'
            ? 'Body: `{value, systemMetadata?, headers?}`. As DataHub, a CREATE by default (`createIfNotExists=true`: refused when the aspect exists); `createIfNotExists=false` upserts, `createIfEntityNotExists=true` creates the entity with it. '
            : 'Body: the patch, a JSON Patch array or `{patch, arrayPrimaryKeys?, forceGenericPatch?}`; answers the value it produced. ') +
          'Synchronous by default (`async=false`: 200 once the primary store holds it; `async=true`: 202 once it is on the log; `X-DataHub-Sync-Index-Update: true`: once search shows it). Answers `{urn, <aspectName>: {value, systemMetadata?}}` with a `traceparent` header.',
        query: z.object(
          method === 'POST'
            ? { ...writeQuery(false), createIfNotExists: flag(true) }
            : { async: flag(false), systemMetadata: flag(false) },
        ),
        body: z.unknown(),
        handle: async ({ query, body, key, params, context }) => {
          const entity = entityOfParams(params);
          const { urn, aspect } = entityPathOf(entity, key ?? '');
          if (aspect === undefined) {
            throw new BadRequestError(
              `${method} names the aspect to write: ${ENTITY}/${entity.name}/{entityUrn}/{aspectName}`,
            );
          }
          const flags = query as { createIfEntityNotExists?: boolean; createIfNotExists?: boolean };
          let raw: RawProposal;
          try {
            raw =
              method === 'PATCH'
                ? aspectProposal(entity.name, urn, aspect.name, { value: body }, 'PATCH')
                : aspectProposal(
                    entity.name,
                    urn,
                    aspect.name,
                    body,
                    createChangeType({
                      createIfEntityNotExists: flags.createIfEntityNotExists ?? false,
                      createIfNotExists: flags.createIfNotExists ?? true,
                    }),
                  );
          } catch (error) {
            if (error instanceof BadRequestError) throw new BadRequestError(`Request body ${error.message}`);
            throw error;
          }
          const proposals = await validateAll([{ proposal: raw, where: aspect.name }]);
          const written = await submit(context, proposals, [raw], query.async);
          const [answer] = await writeAnswer(context, proposals, written.wait, query.systemMetadata);
          return { status: written.wait ? 200 : 202, body: answer, headers: written.headers };
        },
      }),
    ),
    defineRoute({
      method: 'POST',
      resource: '/openapi/v2/entity/batch/:entityName',
      family: 'openapi',
      access: { kind: 'caller' },
      summary: 'Read a batch of entities of one type (version 2 shape).',
      description:
        "Body: `{urns, aspectNames?, withSystemMetadata?}`. Answers `{entities: [{urn, aspects: {<aspectName>: {value, systemMetadata?}}}]}`, one per URN in request order (no aspects for an entity with nothing stored); `aspectNames` empty or absent reads every versioned aspect. Needs DataHub's ENTITY READ privilege on every entity (with authentication on).",
      body: z.object({
        urns: z.array(z.string().min(1)).max(1000),
        aspectNames: z.array(z.string().min(1)).nullish(),
        withSystemMetadata: z.boolean().nullish(),
      }),
      example: {
        body: {
          urns: ['urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)'],
          aspectNames: ['datasetProperties'],
          withSystemMetadata: false,
        },
      },
      handle: async ({ body, params, context }) => {
        const entity = entityOfParams(params);
        const urns = [...new Set(body.urns.map((urn) => entityUrnOf(entity, urn)))];
        const aspects = (body.aspectNames ?? []).map((name) => aspectNamed(entity, name));
        await requireEntities(context, 'READ', ofUrns(urns));
        const answers = await readItems(
          context,
          entity,
          urns.map((urn) => ({ urn, aspects: aspects.map((spec) => ({ spec, version: 0 })) })),
        );
        return {
          body: {
            entities: urns.map((urn) => v2Entity(urn, answers.get(urn) ?? [], body.withSystemMetadata === true)),
          },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/openapi/entities/v1',
      family: 'openapi',
      access: { kind: 'writes' },
      summary: "Upsert aspects, as the Java emitter's `emit(List<UpsertAspectRequest>)` sends them.",
      description:
        "Body: `[{entityType, entityUrn | entityKeyAspect, aspect: {__type: <aspect record name>, …fields}}]` — unions inside written `{__type: <member record name>, …}`, as the generated Java models write them. Every aspect is validated before any is published; answers once the writer applied them: 201 with the URNs whose aspect changed, or 200 with `[]` when none did (with `X-DataHub-Sync-Index-Update: true`, once search and relationships show them), with a `traceparent` header. The trailing slash of DataHub's path is optional.",
      body: z.unknown(),
      example: {
        body: [
          {
            entityType: 'dataset',
            entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)',
            aspect: { __type: 'DatasetProperties', description: 'A sample table' },
          },
        ],
      },
      handle: async ({ body, context }) => {
        const located = v1WriteProposals(registry, body);
        const proposals = await validateAll(located);
        const written = await submit(context, proposals, [], false);
        const changed = written.outcomes.flatMap((outcome) =>
          outcome.status === 'APPLIED' ? [outcome.entityUrn] : [],
        );
        return { status: changed.length > 0 ? 201 : 200, body: changed, headers: written.headers };
      },
    }),
    defineRoute({
      method: 'GET',
      resource: '/openapi/v1/registry/models/entity/specifications',
      family: 'openapi',
      access: {
        kind: 'privilege',
        anyOf: [['MANAGE_SYSTEM_OPERATIONS']],
        message: '{actor} is not authorized to get entity',
      },
      summary: 'The entity registry: every entity type with its key aspect and aspects, paginated.',
      description:
        "Answers `{elements, start, count, total}`, entities sorted by name, each DataHub's entity spec: `name`, `entityAnnotation`, `keyAspectName`, `keyAspectSpec`, `aspectSpecs` and `aspectSpecMap` (each aspect's `aspectAnnotation`: `name`, `timeseries`, `autoRender`, `schemaVersion` when it has one), `snapshotSchemaName`. Field specs (searchable, relationship…) are not listed. A `start` past the end answers no elements.",
      query: z.object({
        start: z.coerce
          .number({ error: 'start must be an integer' })
          .int('start must be an integer')
          .min(0, 'start must be ≥ 0')
          .default(0),
        count: countParam(5),
      }),
      example: { query: { start: '0', count: '50' } },
      handle: ({ query }) => Promise.resolve({ body: entitySpecsPage(registry, query.start, query.count) }),
    }),
    defineRoute({
      method: 'GET',
      resource: '/openapi/v1/registry/models/entity/specifications/:entityName',
      family: 'openapi',
      access: {
        kind: 'privilege',
        anyOf: [['MANAGE_SYSTEM_OPERATIONS']],
        message: '{actor} is not authorized to get entity',
      },
      summary: 'One entity type of the registry: its name and aspects.',
      description: 'Answers `{name, aspectSpecs}`; 404 for an entity type the registry does not have.',
      handle: ({ params }) => {
        const entity = registry.entity(params['entityName'] ?? '');
        if (entity === undefined) {
          throw new NotFoundError(`Failed to find entity with name ${params['entityName'] ?? ''} in EntityRegistry`);
        }
        const { name, aspectSpecs } = entitySpecDto(entity);
        return Promise.resolve({ body: { name, aspectSpecs } });
      },
    }),
  ];
}

/** The fields a scroll sorts by: `sortCriteria` (query or body), else `sort`. */
function sortFieldsOf(
  query: { readonly sort: string; readonly sortCriteria?: readonly string[] | undefined },
  bodyCriteria: readonly { readonly field: string; readonly order: string }[] | undefined,
): string[] {
  if (bodyCriteria !== undefined && bodyCriteria.length > 0) return bodyCriteria.map((criterion) => criterion.field);
  if (query.sortCriteria !== undefined && query.sortCriteria.length > 0) return [...query.sortCriteria];
  return query.sort === '' ? [] : [query.sort];
}

/** The URNs and the number of matches of a search answer (`value.entities`: URNs, or `{entity}` objects). */
function searchPageOf(answer: unknown): { urns: string[]; total: number } {
  const value = valueOf(answer, 'value');
  const entities = valueOf(value, 'entities');
  const total = valueOf(value, 'numEntities');
  if (!Array.isArray(entities) || typeof total !== 'number') {
    throw new BadGatewayError('The search indexer answered a search in an unexpected shape');
  }
  const urns = entities.map((entity: unknown) => (typeof entity === 'string' ? entity : valueOf(entity, 'entity')));
  if (!urns.every((urn): urn is string => typeof urn === 'string')) {
    throw new BadGatewayError('The search indexer answered a search in an unexpected shape');
  }
  return { urns, total };
}

/** DataHub's 404 of the entity reads, in the OpenAPI error body, with its `Not-Found-Reason` header. */
function notFound(message: string): RouteResponse {
  return {
    status: 404,
    body: openapiErrorBody(toClientError(new NotFoundError(message))),
    headers: { [NOT_FOUND_REASON]: 'ENTITY' },
  };
}

function valueOf(value: unknown, field: string): unknown {
  return isObject(value) ? value[field] : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
