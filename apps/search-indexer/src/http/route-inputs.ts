import { z } from 'zod';
import { BadRequestError, ValidationError } from '@strata/model';
import type { RouteAccess } from '@strata/http';
import {
  filterSchema,
  MAX_PAGE_SIZE,
  REMOVED_FIELD,
  type FacetResult,
  type Filter,
  type SearchHit,
} from '@strata/indices';

/** Searching, browsing, autocompleting: DataHub's ENTITY READ on every entity type searched (all, when none is named). */
export const SEARCH_ACCESS: RouteAccess = {
  kind: 'resource',
  group: 'ENTITY',
  operations: ['READ'],
  resource: { in: 'bodyTypes', names: ['entity', 'entities'] },
  message: 'User is unauthorized to search.',
};

export const pageNumber = (name: string) =>
  z
    .number({ error: `${name} must be an integer` })
    .int(`${name} must be an integer`)
    .min(0, `${name} must be ≥ 0`);

export const pageSize = (name: string) =>
  pageNumber(name).max(MAX_PAGE_SIZE, `Result count exceeds limit of ${MAX_PAGE_SIZE}`);

export const optionalFilter = filterSchema.nullish().transform((filter) => filter ?? []);

/**
 * DataHub's `SearchFlags`, every field of its current definition accepted. What each does in Strata:
 * - `includeSoftDeleted`: soft-deleted entities are searched too (as when a criterion names `removed`);
 * - `skipAggregates`: no facets are counted or answered; `maxAggValues`: at most that many values per facet;
 * - `skipHighlighting`: no `matchedFields`;
 * - `skipCache`: accepted; Strata keeps no page a write could make stale (a kept page is dropped by the next write to
 *   its entity type), so a cached answer is always the answer a fresh read gives;
 * - `fulltext`: accepted; the query text is always read as full text with `field:value` terms (DataHub's
 *   `fulltext: false` structured syntax is the same query-string syntax);
 * - `getSuggestions`, `groupingSpec`, `customHighlightingFields`, `rewriteQuery`, `filterNonLatestVersions`,
 *   `includeRestricted`, `fetchExtraFields`: accepted and without effect (spelling suggestions, grouping, extra fields
 *   and restricted entities are features of DataHub's GraphQL layer, not of its REST answers).
 */
export const searchFlagsSchema = z
  .looseObject({
    fulltext: z.boolean().optional(),
    skipCache: z.boolean().optional(),
    maxAggValues: z.number().int().min(0, 'maxAggValues must be ≥ 0').optional(),
    skipHighlighting: z.boolean().optional(),
    skipAggregates: z.boolean().optional(),
    includeSoftDeleted: z.boolean().optional(),
    // DataHub Cloud's: index fields whose values each hit carries in `extraFields`.
    fetchExtraFields: z.array(z.string().min(1)).max(100, 'at most 100 fetchExtraFields').nullish(),
  })
  .nullish()
  .transform((flags) => flags ?? {});

export type SearchFlags = z.output<typeof searchFlagsSchema>;

/** DataHub's `SortCriterion`. */
export const sortCriterionSchema = z.object({
  field: z.string().min(1),
  order: z.enum(['ASCENDING', 'DESCENDING'], { error: 'order must be ASCENDING or DESCENDING' }).default('ASCENDING'),
});

/**
 * The filter a search runs with, given its flags: with `includeSoftDeleted`, a criterion every document meets and that
 * names `removed` joins each group, so soft-deleted documents are not hidden (every document has a `removed` value).
 */
export function filterWithFlags(filter: Filter, flags: SearchFlags): Filter {
  if (flags.includeSoftDeleted !== true) return filter;
  const everyDocument = { field: REMOVED_FIELD, values: [], condition: 'EXISTS', negated: false } as const;
  return filter.length === 0 ? [[everyDocument]] : filter.map((group) => [...group, everyDocument]);
}

/** The hits as answered, given the flags: without their matched fields when highlighting is skipped. */
export function hitsWithFlags(hits: readonly SearchHit[], flags: SearchFlags): readonly SearchHit[] {
  return flags.skipHighlighting === true ? hits.map((hit) => ({ urn: hit.urn, matchedFields: [] })) : hits;
}

/** The facets as answered, given the flags: none when skipped, else at most `maxAggValues` values each. */
export function facetsWithFlags(facets: readonly FacetResult[], flags: SearchFlags): readonly FacetResult[] {
  if (flags.skipAggregates === true) return [];
  const most = flags.maxAggValues;
  if (most === undefined) return facets;
  return facets.map((facet) => ({
    ...facet,
    counts: Object.fromEntries(Object.entries(facet.counts).slice(0, most)),
  }));
}

/**
 * The read model's rejections (unknown entity, malformed query text or filter) are the client's mistakes in a read:
 * 400, as DataHub answers them, rather than the 422 of a proposal that fails validation.
 */
export async function asBadRequest<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ValidationError) throw new BadRequestError(error.message, { cause: error });
    throw error;
  }
}
