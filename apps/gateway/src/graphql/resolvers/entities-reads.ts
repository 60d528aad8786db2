/**
 * The entity fields that read beyond the entity's own latest aspects, each through the route REST clients use for the
 * same thing, so that both interfaces answer alike on both deployments: `relationships` (`GET /relationships`),
 * `lineage` (`POST /relationships?action=getLineage`: the one lineage walk), `datasetProfiles` (the timeseries read),
 * `usageStats` (`/usageStats`), a schema at an earlier version (`GET /aspects`), the chains of parent containers and
 * glossary nodes, and the raw aspects.
 */
import { BadRequestError, NotFoundError } from '@strata/model';
import { entityRef } from '../schema';
import { listOf, numberOf, recordOf, schemaMetadataOf, textOf, type Value } from './entities-values';
import { presenceOf, viewOf, type EntityView } from './entities-view';

/** The most parents a chain of containers or glossary nodes is followed through (DataHub's default depth). */
export const MAX_PARENT_DEPTH = 50;

/** Whether an optional argument was left out (GraphQL gives null or nothing). */
function isAbsent(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

/** DataHub's default page of a relationship or lineage read. */
const DEFAULT_COUNT = 100;

interface RelationshipsInput {
  readonly types: readonly string[];
  readonly direction: 'INCOMING' | 'OUTGOING';
  readonly start?: number | null;
  readonly count?: number | null;
  readonly includeSoftDelete?: boolean | null;
}

/**
 * `relationships(input)`: the graph's edges of one direction and some types, read as the caller (`GET
 * /relationships`, its LINEAGE READ check). With `filterRemoved` (DataHub does it for groups), related entities that
 * do not exist or are soft-deleted are left out when `includeSoftDelete` is false, and the total shrinks by as many.
 */
export async function relationshipsOf(
  view: EntityView,
  input: RelationshipsInput,
  filterRemoved: boolean,
): Promise<Value> {
  const start = input.start ?? 0;
  const count = input.count ?? DEFAULT_COUNT;
  const body = recordOf(
    await view.context.call(
      {
        method: 'GET',
        resource: '/relationships',
        query: {
          urn: view.urn,
          direction: input.direction,
          types: [...input.types],
          start: String(start),
          count: String(count),
        },
      },
      view.context.request,
    ),
  );
  const found = listOf(body?.['relationships']).flatMap((item) => {
    const relationship = recordOf(item);
    const entity = textOf(relationship?.['entity']);
    const type = textOf(relationship?.['type']);
    if (relationship === undefined || entity === undefined || type === undefined) return [];
    const created = recordOf(relationship['created']);
    return [
      {
        type,
        entity,
        direction: input.direction,
        created:
          created === undefined
            ? null
            : { time: numberOf(created['time']) ?? 0, actor: textOf(created['actor']) ?? null },
      },
    ];
  });
  let kept = found;
  // DataHub's `includeSoftDelete` defaults to true: only an explicit false filters.
  if (filterRemoved && input.includeSoftDelete === false) {
    const presence = await Promise.all(found.map((relationship) => presenceOf(view.context, relationship.entity)));
    kept = found.filter((_, index) => presence[index]?.exists === true && !presence[index].removed);
  }
  return {
    start: numberOf(body?.['start']) ?? start,
    count: kept.length,
    total: (numberOf(body?.['total']) ?? found.length) - (found.length - kept.length),
    relationships: kept,
  };
}

interface LineageInput {
  readonly direction: 'UPSTREAM' | 'DOWNSTREAM';
  readonly start?: number | null;
  readonly count?: number | null;
  readonly startTimeMillis?: number | null;
  readonly endTimeMillis?: number | null;
  readonly includeGhostEntities?: boolean | null;
  readonly separateSiblings?: boolean | null;
}

/**
 * `lineage(input)`: the entities one hop upstream or downstream, from the lineage walk REST's `getLineage` answers
 * (read as the caller, its LINEAGE READ check). As DataHub does, entities that do not exist or are soft-deleted are
 * left out unless `includeGhostEntities`, and counted in `filtered`; `start`, `count` and `total` are the walk's.
 */
export async function lineageOf(view: EntityView, input: LineageInput): Promise<Value> {
  const body = recordOf(
    await view.context.call(
      {
        method: 'POST',
        resource: '/relationships',
        action: 'getLineage',
        body: {
          urn: view.urn,
          direction: input.direction,
          start: input.start ?? 0,
          count: input.count ?? DEFAULT_COUNT,
          maxHops: 1,
          ...(isAbsent(input.startTimeMillis) ? {} : { startTimeMillis: input.startTimeMillis }),
          ...(isAbsent(input.endTimeMillis) ? {} : { endTimeMillis: input.endTimeMillis }),
        },
      },
      view.context.request,
    ),
  );
  const value = recordOf(body?.['value']) ?? body ?? {};
  const found = listOf(value['relationships']).flatMap((item) => {
    const relationship = recordOf(item);
    const entity = textOf(relationship?.['entity']);
    if (relationship === undefined || entity === undefined) return [];
    return [
      {
        entity,
        type: textOf(relationship['type']) ?? '',
        degree: numberOf(relationship['degree']) ?? 1,
        createdOn: numberOf(relationship['createdOn']) ?? null,
        createdActor: textOf(relationship['createdActor']) ?? null,
        updatedOn: numberOf(relationship['updatedOn']) ?? null,
        updatedActor: textOf(relationship['updatedActor']) ?? null,
        isManual: typeof relationship['isManual'] === 'boolean' ? relationship['isManual'] : null,
        paths: listOf(relationship['paths']).map((path) => ({
          path: listOf(path).filter((urn) => typeof urn === 'string'),
        })),
      },
    ];
  });
  let kept = found;
  if (input.includeGhostEntities !== true) {
    const presence = await Promise.all(found.map((relationship) => presenceOf(view.context, relationship.entity)));
    kept = found.filter((_, index) => presence[index]?.exists === true && !presence[index].removed);
  }
  return {
    start: numberOf(value['start']) ?? input.start ?? 0,
    count: numberOf(value['count']) ?? found.length,
    total: numberOf(value['total']) ?? found.length,
    filtered: (numberOf(value['filtered']) ?? 0) + found.length - kept.length,
    relationships: kept,
  };
}

/**
 * Whether the caller holds a privilege on the entity where DataHub's resolver checks one itself (and answers nothing
 * rather than failing): always while authentication is off.
 */
async function holds(view: EntityView, privilege: string): Promise<boolean> {
  const authorizer = view.context.authorizer;
  if (authorizer === undefined || !authorizer.enabled) return true;
  return authorizer.allows(view.context.request, [[privilege]], { type: view.entityName, urn: view.urn });
}

interface FacetFilter {
  readonly field: string;
  readonly value?: string | null;
  readonly values?: readonly string[] | null;
  readonly condition?: string | null;
  readonly negated?: boolean | null;
}

interface ProfileArguments {
  readonly startTimeMillis?: number | null;
  readonly endTimeMillis?: number | null;
  readonly limit?: number | null;
  readonly filter?: { readonly and: readonly FacetFilter[] } | null;
}

/**
 * `datasetProfiles`: the dataset's `datasetProfile` values, newest first, from the timeseries read. As DataHub, a
 * caller without VIEW_DATASET_PROFILE on the dataset gets none.
 */
export async function datasetProfilesOf(view: EntityView, args: ProfileArguments): Promise<Value[]> {
  if (!(await holds(view, 'VIEW_DATASET_PROFILE'))) return [];
  const body = recordOf(
    await view.context.system(
      {
        method: 'POST',
        resource: '/aspects',
        action: 'getTimeseriesAspectValues',
        body: {
          urn: view.urn,
          entity: view.entityName,
          aspect: 'datasetProfile',
          ...(isAbsent(args.startTimeMillis) ? {} : { startTimeMillis: args.startTimeMillis }),
          ...(isAbsent(args.endTimeMillis) ? {} : { endTimeMillis: args.endTimeMillis }),
          ...(isAbsent(args.limit) ? {} : { limit: args.limit }),
          ...(args.filter === undefined || args.filter === null
            ? {}
            : { filter: { or: [{ and: args.filter.and.map(criterionOf) }] } }),
        },
      },
      view.context.request,
    ),
  );
  const value = recordOf(body?.['value']) ?? {};
  return listOf(value['values']).flatMap((item) => {
    const text = textOf(recordOf(recordOf(item)?.['aspect'])?.['value']);
    const profile = text === undefined ? undefined : recordOf(JSON.parse(text));
    return profile === undefined ? [] : [profile];
  });
}

function criterionOf(filter: FacetFilter): Value {
  const values = filter.values ?? (isAbsent(filter.value) ? [] : [filter.value]);
  return {
    field: filter.field,
    values,
    ...(values[0] === undefined ? {} : { value: values[0] }),
    condition: filter.condition ?? 'EQUAL',
    negated: filter.negated === true,
  };
}

interface UsageArguments {
  readonly range?: string | null;
  readonly startTimeMillis?: number | null;
}

/**
 * `usageStats`: the dataset's usage by day from the usage read, over `range` back from now, or from `startTimeMillis`
 * to now. As DataHub, a caller without VIEW_DATASET_USAGE on the dataset gets null.
 */
export async function usageStatsOf(view: EntityView, args: UsageArguments): Promise<Value | null> {
  if (!(await holds(view, 'VIEW_DATASET_USAGE'))) return null;
  let call: { action: string; body: Value };
  if (!isAbsent(args.startTimeMillis)) {
    call = {
      action: 'query',
      body: { resource: view.urn, duration: 'DAY', startTime: args.startTimeMillis, endTime: view.context.now() },
    };
  } else if (!isAbsent(args.range)) {
    call = { action: 'queryRange', body: { resource: view.urn, duration: 'DAY', rangeFromEnd: args.range } };
  } else {
    throw new BadRequestError('usageStats needs a range (or a startTimeMillis)');
  }
  const body = recordOf(
    await view.context.system(
      { method: 'POST', resource: '/usageStats', action: call.action, body: call.body },
      view.context.request,
    ),
  );
  return recordOf(body?.['value']) ?? null;
}

/**
 * A schema at a version: the latest from the entity's read (so that the schemas of a page of datasets are one read),
 * an earlier one through `GET /aspects` as the caller; null when there is none.
 */
export async function schemaMetadataAt(view: EntityView, version: number | null | undefined): Promise<Value | null> {
  if (version === undefined || version === null || version === 0) {
    const latest = view.aspect('schemaMetadata');
    return latest === undefined ? null : schemaMetadataOf(latest, view.urn, view.versionOf('schemaMetadata') ?? 0);
  }
  let body: Value | undefined;
  try {
    body = recordOf(
      await view.context.call(
        {
          method: 'GET',
          resource: '/aspects',
          key: view.urn,
          query: { aspect: 'schemaMetadata', version: String(version) },
        },
        view.context.request,
      ),
    );
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
  const value = Object.values(recordOf(body?.['aspect']) ?? {})[0];
  const record = recordOf(value);
  return record === undefined ? null : schemaMetadataOf(record, view.urn, numberOf(body?.['version']) ?? version);
}

/**
 * The chain of parents of an entity, nearest first: `next` names the parent of each entity on it. A cycle or a chain
 * longer than {@link MAX_PARENT_DEPTH} ends it.
 */
async function chainOf(view: EntityView, next: (entity: EntityView) => string | undefined): Promise<string[]> {
  const chain: string[] = [];
  const seen = new Set([view.urn]);
  let parent = next(view);
  while (parent !== undefined && !seen.has(parent) && chain.length < MAX_PARENT_DEPTH) {
    chain.push(parent);
    seen.add(parent);
    const parentView = await viewOf(entityRef(parent), view.context);
    parent = parentView === null ? undefined : next(parentView);
  }
  return chain;
}

/** `parentContainers`: the containers above the entity, nearest first. */
export async function parentContainersOf(view: EntityView): Promise<Value> {
  const containers = await chainOf(view, (entity) => textOf(entity.aspect('container')?.['container']));
  return { count: containers.length, containers };
}

/** `parentNodes`: the glossary nodes above a term or node, nearest first. */
export async function parentNodesOf(view: EntityView): Promise<Value> {
  const nodes = await chainOf(view, (entity) =>
    textOf((entity.aspect('glossaryTermInfo') ?? entity.aspect('glossaryNodeInfo'))?.['parentNode']),
  );
  return { count: nodes.length, nodes };
}

interface AspectParams {
  readonly aspectNames?: readonly string[] | null;
  readonly autoRenderOnly?: boolean | null;
}

/**
 * `aspects(input)`: the entity's aspects (those named, or every one; only those rendered automatically with
 * `autoRenderOnly`), in the registry's order, each as its name and its value as JSON text. Aspects the entity does not
 * hold, timeseries aspects and secrets are not among them.
 */
export function rawAspectsOf(view: EntityView, input: AspectParams | null | undefined): Value[] {
  const names = input?.aspectNames ?? [];
  const spec = view.context.registry.entity(view.entityName);
  return (spec?.aspects ?? []).flatMap((aspect) => {
    if (names.length > 0 && !names.includes(aspect.name)) return [];
    if (input?.autoRenderOnly === true && recordOf(aspect.schema.annotations['Aspect'])?.['autoRender'] !== true) {
      return [];
    }
    const value = view.loaded.aspects[aspect.name]?.value;
    return value === undefined ? [] : [{ aspectName: aspect.name, payload: JSON.stringify(value) }];
  });
}
