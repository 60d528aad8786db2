import { BadRequestError } from '@strata/model';
import type { GraphqlContext } from '../context';
import type { EntityRef } from '../schema';
import {
  BROWSE_ENTITY_TYPES,
  pageArgument,
  queryTextOf,
  restFilterOf,
  searchFlagsOf,
  withCriterion,
  type AndFilterInput,
  type RestCriterion,
  type SearchFlagsInput,
} from './search-inputs';
import { servedEntity, type RestSearchResult } from './search-results';
import { callAction, scopeOf } from './search-scope';

/**
 * DataHub's `browseV2`: one level of the tree the entities' `browsePathsV2` draw. The groups are the path segments
 * that come right after `path` in the browse paths of the entities that match (types, query, filters, view), each
 * with how many entities lie under it and whether any lies deeper; like DataHub, an entity whose path ends at `path`
 * is in no group (it is found by a search filtered on its browse path).
 *
 * The search index keeps a document's browse path segments as a set (`browsePathV2`), not their order, so the index
 * narrows the entities to those holding every segment of `path`, and their `browsePathsV2` aspects (read as the
 * caller, batched) place them. That reads each entity under `path`: at most {@link MAX_BROWSED_ENTITIES}, beyond
 * which the request is refused with a hint to narrow it.
 */

export interface BrowseV2Input {
  readonly type?: string | null;
  readonly types?: readonly string[] | null;
  readonly path?: readonly string[] | null;
  readonly orFilters?: readonly AndFilterInput[] | null;
  readonly viewUrn?: string | null;
  readonly query?: string | null;
  readonly start?: number | null;
  readonly count?: number | null;
  readonly searchFlags?: SearchFlagsInput | null;
}

/** The most entities one level of browsing places (the indexer's largest page). */
export const MAX_BROWSED_ENTITIES = 10_000;

/** Entities read from the index per page while placing them. */
const BROWSE_PAGE = 5_000;

/** The index field holding each entity's browse path segments. */
const BROWSE_PATH_FIELD = 'browsePathV2';

/** DataHub's page size when a browse names none. */
const DEFAULT_COUNT = 10;

export interface BrowseGroupObject {
  readonly name: string;
  readonly count: number;
  readonly hasSubGroups: boolean;
  readonly entity: EntityRef | null;
}

export async function browseV2(context: GraphqlContext, input: BrowseV2Input) {
  const start = pageArgument(input.start, 0, 'start');
  const count = pageArgument(input.count, DEFAULT_COUNT, 'count');
  const path = [...(input.path ?? [])];
  const types = input.types !== null && input.types !== undefined && input.types.length > 0 ? input.types : input.type;
  const scope = await scopeOf(
    context,
    { types: typeof types === 'string' ? [types] : types, orFilters: input.orFilters, viewUrn: input.viewUrn },
    BROWSE_ENTITY_TYPES,
  );
  const answer = (groups: BrowseGroupObject[], totalNumEntities: number) => ({
    start,
    count,
    total: groups.length,
    groups: groups.slice(start, start + count),
    metadata: { path, totalNumEntities },
  });
  if (scope === undefined) return answer([], 0);

  const filter = pathCriteria(path).reduce<readonly (readonly RestCriterion[])[]>(
    (groups, criterion) => withCriterion(groups, criterion),
    scope.filter,
  );
  const urns: string[] = [];
  let scrollId: string | undefined;
  do {
    const page = await callAction<RestSearchResult>(context, {
      method: 'POST',
      resource: '/entities',
      action: 'scrollAcrossEntities',
      body: {
        input: queryTextOf(input.query),
        entities: scope.entities,
        filter: restFilterOf(filter),
        count: BROWSE_PAGE,
        ...(scrollId === undefined ? {} : { scrollId }),
        searchFlags: { ...searchFlagsOf(input.searchFlags), skipAggregates: true, skipHighlighting: true },
      },
    });
    if (page.numEntities > MAX_BROWSED_ENTITIES) {
      throw new BadRequestError(
        `More than ${MAX_BROWSED_ENTITIES} entities lie under this path (${page.numEntities}): narrow the browse with a query, filters or entity types`,
      );
    }
    urns.push(...page.entities.map((hit) => hit.entity));
    scrollId = page.scrollId;
  } while (scrollId !== undefined);
  const loaded = await context.entities.loadMany(urns);
  const paths = loaded.flatMap((entity) => {
    if (entity === null || entity instanceof Error) return [];
    const segments = browsePathOf(entity.aspects['browsePathsV2']?.value);
    return segments === undefined ? [] : [segments];
  });
  const { groups, totalNumEntities } = browseGroupsOf(paths, path);
  return answer(groups, totalNumEntities);
}

/** What the index can check of a path: the entity's browse path holds each segment (the root: any path at all). */
function pathCriteria(path: readonly string[]): RestCriterion[] {
  if (path.length === 0) return [{ field: BROWSE_PATH_FIELD, values: [], condition: 'EXISTS', negated: false }];
  return path.map((segment) => ({ field: BROWSE_PATH_FIELD, values: [segment], condition: 'EQUAL', negated: false }));
}

/** The segments (`id`s) of a `browsePathsV2` value, in order; undefined when the value has no path. */
export function browsePathOf(value: unknown): string[] | undefined {
  const entries = (value as { path?: unknown } | undefined)?.path;
  if (!Array.isArray(entries)) return undefined;
  return entries.flatMap((entry: unknown) => {
    const id = (entry as { id?: unknown } | null)?.id;
    return typeof id === 'string' ? [id] : [];
  });
}

/**
 * The groups one level below `path` of the entities whose browse paths are `paths`: each segment that follows `path`
 * exactly, with the number of entities under it and whether any of them lies deeper; ordered as DataHub's index
 * orders them (most entities first, then by name). `totalNumEntities` counts the entities in some group.
 */
export function browseGroupsOf(
  paths: readonly (readonly string[])[],
  path: readonly string[],
): { groups: BrowseGroupObject[]; totalNumEntities: number } {
  const byName = new Map<string, { count: number; deeper: boolean }>();
  let totalNumEntities = 0;
  for (const segments of paths) {
    if (segments.length <= path.length || !path.every((segment, index) => segments[index] === segment)) continue;
    const name = segments[path.length] ?? '';
    const group = byName.get(name) ?? { count: 0, deeper: false };
    group.count += 1;
    group.deeper ||= segments.length > path.length + 1;
    byName.set(name, group);
    totalNumEntities += 1;
  }
  const groups = [...byName]
    .map(([name, group]) => ({
      name,
      count: group.count,
      hasSubGroups: group.deeper,
      entity: name.startsWith('urn:li:') ? servedEntity(name) : null,
    }))
    .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { groups, totalNumEntities };
}
