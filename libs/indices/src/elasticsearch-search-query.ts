import type { estypes } from '@elastic/elasticsearch';
import { orOfAndQuery, RANGES } from './elasticsearch-filters';
import { ValidationError } from '@strata/model';

import { strataPaths, valueKind } from './elasticsearch-mappings';
import { MAX_PAGE_SIZE, namesRemoved, valueNumber, valueText } from './search-documents';
import { MAX_FACET_VALUES, type AutocompleteRequest, type Criterion, type Filter } from './search-index';
import { autocompletePrefix, fold, type QueryNode } from './search-query';
import { REMOVED_FIELD, URN_FIELD, type EntitySearchSchema, type IndexField } from './search-schema';

/**
 * The Query DSL of {@link ElasticsearchSearchIndex}: a parsed query, a resolved filter and a request's paging
 * translated to Elasticsearch queries, and the request bodies of search, browse and autocomplete built from them. Pure:
 * the adapter sends these bodies and maps the responses.
 */

type Query = estypes.QueryDslQueryContainer;

/** Elasticsearch's `index.max_result_window` default: `from + size` of a page may not exceed it. */
const MAX_RESULT_WINDOW = 10_000;
/** Terms a multi-word prefix (`sales.ord*`: the phrase `sales ord…`) expands its last word to, at most. */
const MAX_PREFIX_EXPANSIONS = 1000;
const MATCH_NONE: Query = { match_none: {} };

// --- Request bodies ----------------------------------------------------------------------------------------------------

/** The inner hit under which an autocomplete hit carries its best suggestion row. */
export const SUGGESTION_HIT = 'suggestion';

/**
 * A search: the query text and the filter, `removed` hidden, `_score` then `urn` order, the page, the exact total
 * (`track_total_hits`), and the facets as terms aggregations.
 */
export function searchRequest(
  index: string,
  entity: EntitySearchSchema,
  query: QueryNode,
  filter: Filter,
  start: number,
  count: number,
): estypes.SearchRequest {
  const page = count === 0 ? { from: 0, size: 0 } : resultWindow(start, count);
  return {
    index,
    query: { bool: { must: [textQuery(query, entity)], ...visibility(filter, entity) } },
    sort: [{ _score: { order: 'desc' } }, { [URN_FIELD]: { order: 'asc' } }],
    ...page,
    track_total_hits: true,
    _source: [URN_FIELD, strataPaths.aspects],
    ...(entity.facets.length === 0 ? {} : { aggs: facetAggregations(entity) }),
  };
}

/**
 * A browse level's groups and counts: the documents at or below the path, their total, the next segments below the
 * path as groups (largest first), and how many documents are at the path itself (`at`).
 */
export function browseLevelsRequest(
  index: string,
  entity: EntitySearchSchema,
  filter: Filter,
  path: string,
): estypes.SearchRequest {
  const scope = visibility(filter, entity);
  // At or below the path: every document with a browse path, at the root.
  const below: Query =
    path === '' ? { exists: { field: strataPaths.browsePaths } } : { term: { [strataPaths.browsePrefixes]: path } };
  return {
    index,
    size: 0,
    track_total_hits: true,
    query: { bool: { filter: [below, ...scope.filter], must_not: scope.must_not } },
    aggs: {
      groups: {
        terms: {
          field: strataPaths.browsePrefixes,
          // Only the next level: the path, a slash, one segment.
          include: `${escapeRegExp(path)}/[^/]+`,
          size: MAX_PAGE_SIZE,
          order: [{ _count: 'desc' }, { _key: 'asc' }],
        },
      },
      at: { filter: browsedAt(path) },
    },
  };
}

/** The entities of a browse page: the documents at the path, by URN, `from`/`size` of them. */
export function browseEntitiesRequest(
  index: string,
  entity: EntitySearchSchema,
  filter: Filter,
  path: string,
  from: number,
  size: number,
): estypes.SearchRequest {
  const scope = visibility(filter, entity);
  return {
    index,
    query: { bool: { filter: [browsedAt(path), ...scope.filter], must_not: scope.must_not } },
    sort: [{ [URN_FIELD]: { order: 'asc' } }],
    ...resultWindow(from, size),
    track_total_hits: false,
    _source: [URN_FIELD],
  };
}

/** The documents whose browse path is the path itself. */
function browsedAt(path: string): Query {
  // At the path: no document has the root as a browse path.
  return path === '' ? MATCH_NONE : { term: { [strataPaths.browsePaths]: path } };
}

/**
 * An autocomplete: the documents with a suggestion row matching the query (and the field, when named), each with its
 * best row as the {@link SUGGESTION_HIT} inner hit, ordered by their smallest ranked key, then URN.
 */
export function autocompleteRequest(
  index: string,
  entity: EntitySearchSchema,
  filter: Filter,
  request: AutocompleteRequest,
): estypes.SearchRequest {
  const prefix = autocompletePrefix(request.query);
  const rows: Query[] = [];
  // A key begins with the query at rank 0 (the value's start) or at rank 1 (a later word).
  if (prefix !== '') {
    rows.push({
      bool: {
        should: ['0', '1'].map((rank) => ({ prefix: { [strataPaths.suggestionRankedKey]: `${rank}${prefix}` } })),
        minimum_should_match: 1,
      },
    });
  }
  if (request.field !== undefined) rows.push({ term: { [strataPaths.suggestionField]: request.field } });
  const matching: Query = rows.length === 0 ? { match_all: {} } : { bool: { filter: rows } };
  const scope = visibility(filter, entity);
  return {
    index,
    size: request.limit,
    track_total_hits: false,
    _source: [URN_FIELD],
    query: {
      bool: {
        filter: [
          {
            nested: {
              path: strataPaths.suggestions,
              query: matching,
              inner_hits: {
                name: SUGGESTION_HIT,
                size: 1,
                sort: [{ [strataPaths.suggestionRankedKey]: { order: 'asc' } }],
              },
            },
          },
          ...scope.filter,
        ],
        must_not: scope.must_not,
      },
    },
    // A document ranks by its smallest matching ranked key: all its rank-0 matches come before rank-1 ones.
    sort: [
      {
        [strataPaths.suggestionRankedKey]: {
          order: 'asc',
          mode: 'min',
          nested: { path: strataPaths.suggestions, filter: matching },
        },
      },
      { [URN_FIELD]: { order: 'asc' } },
    ],
  };
}

/** `from`/`size` of a page, refused when it reaches past what Elasticsearch pages to. */
function resultWindow(from: number, size: number): { from: number; size: number } {
  if (from + size > MAX_RESULT_WINDOW) {
    throw new ValidationError(
      `Results beyond the first ${MAX_RESULT_WINDOW} cannot be paged to (start ${from} + count ${size})`,
    );
  }
  return { from, size };
}

function facetAggregations(entity: EntitySearchSchema): Record<string, estypes.AggregationsAggregationContainer> {
  return Object.fromEntries(
    entity.facets.map((facet) => [
      facet.name,
      { terms: { field: facet.name, size: MAX_FACET_VALUES, order: [{ _count: 'desc' }, { _key: 'asc' }] } },
    ]),
  );
}

// --- Query text --------------------------------------------------------------------------------------------------------

/** The parsed query text as a query on the `strata.words` / `strata.folded` fields, with the fields' boosts. */
function textQuery(node: QueryNode, entity: EntitySearchSchema): Query {
  switch (node.kind) {
    case 'all':
      return { match_all: {} };
    case 'words':
      return anyField(candidateFields(node.field, entity), (field) => {
        // A field queried as values, not words (browse paths): its values containing the words in order.
        if (!field.text) return wildcard(field, `*${node.words.join('*')}*`);
        const path = strataPaths.words(field.name);
        const text = node.words.join(' ');
        if (!node.prefix) return { match_phrase: { [path]: { query: text, boost: field.boost } } };
        if (node.words.length === 1) return { prefix: { [path]: { value: text, boost: field.boost } } };
        return {
          match_phrase_prefix: {
            [path]: { query: text, boost: field.boost, max_expansions: MAX_PREFIX_EXPANSIONS },
          },
        };
      });
    case 'wildcard':
      return anyField(candidateFields(node.field, entity), (field) => wildcard(field, escapeWildcard(node.pattern)));
    case 'not':
      return { bool: { must_not: [textQuery(node.node, entity)] } };
    case 'and': {
      const must = node.nodes.filter((child) => child.kind !== 'not').map((child) => textQuery(child, entity));
      const mustNot = node.nodes.flatMap((child) => (child.kind === 'not' ? [textQuery(child.node, entity)] : []));
      return {
        bool: { ...(must.length === 0 ? {} : { must }), ...(mustNot.length === 0 ? {} : { must_not: mustNot }) },
      };
    }
    case 'or':
      return { bool: { should: node.nodes.map((child) => textQuery(child, entity)), minimum_should_match: 1 } };
  }
}

/** The named field, or the default-query fields when the term names none. */
function candidateFields(name: string | undefined, entity: EntitySearchSchema): readonly IndexField[] {
  if (name === undefined) return entity.defaultFields;
  const field = entity.field(name);
  return field === undefined ? [] : [field];
}

function anyField(fields: readonly IndexField[], clause: (field: IndexField) => Query): Query {
  return anyOf(fields.map(clause));
}

/** A glob (already folded, `*` and `?` live, `\` escaped) over the folded values of a field. */
function wildcard(field: IndexField, pattern: string): Query {
  return { wildcard: { [strataPaths.folded(field.name)]: { value: pattern, boost: field.boost } } };
}

/** A `*`/`?` glob as an Elasticsearch wildcard value: only the backslash, literal in globs, needs escaping. */
function escapeWildcard(pattern: string): string {
  return pattern.replace(/\\/g, '\\\\');
}

/** Text matched literally by a wildcard value. */
function literalWildcard(text: string): string {
  return text.replace(/[\\*?]/g, '\\$&');
}

/** Text matched literally by a Lucene regular expression: every character but ASCII letters and digits escaped. */
function escapeRegExp(text: string): string {
  return text.replace(/[^A-Za-z0-9]/gu, '\\$&');
}

// --- Filters -----------------------------------------------------------------------------------------------------------

/** The clauses every query carries: the filter, and soft-deleted documents hidden unless a criterion names `removed`. */
function visibility(filter: Filter, entity: EntitySearchSchema): { filter: Query[]; must_not: Query[] } {
  const clause = filterQuery(filter, entity);
  return {
    filter: clause === undefined ? [] : [clause],
    must_not: namesRemoved(filter) ? [] : [{ term: { [REMOVED_FIELD]: true } }],
  };
}

/** OR of AND groups (a resolved filter). Undefined when it filters nothing: no groups, or a group left empty. */
function filterQuery(filter: Filter, entity: EntitySearchSchema): Query | undefined {
  return orOfAndQuery(filter, (criterion) => criterionQuery(criterion, entity));
}

/** A criterion as a query matching the documents it keeps, or (`negate`) those it drops. */
function criterionQuery(criterion: Criterion, entity: EntitySearchSchema): { query: Query; negate: boolean } {
  const field = entity.field(criterion.field);
  if (field === undefined) throw new ValidationError(`Unknown filter field ${criterion.field}`);
  const folded = strataPaths.folded(field.name);
  const present: Query = { term: { [strataPaths.fields]: field.name } };
  const matches = (query: Query): { query: Query; negate: boolean } => ({ query, negate: criterion.negated });
  switch (criterion.condition) {
    case 'EQUAL':
    case 'IN':
      return matches(equalQuery(field, criterion.values));
    case 'CONTAIN':
      return matches(anyOf(criterion.values.map((value) => foldedWildcard(folded, `*${literal(value)}*`))));
    case 'START_WITH':
      return matches(anyOf(criterion.values.map((value) => foldedWildcard(folded, `${literal(value)}*`))));
    case 'END_WITH':
      return matches(anyOf(criterion.values.map((value) => foldedWildcard(folded, `*${literal(value)}`))));
    case 'GREATER_THAN':
    case 'GREATER_THAN_OR_EQUAL_TO':
    case 'LESS_THAN':
    case 'LESS_THAN_OR_EQUAL_TO': {
      const operator = RANGES[criterion.condition];
      return matches(anyOf(criterion.values.map((value) => rangeQuery(field, operator, value))));
    }
    case 'EXISTS':
      return matches(present);
    case 'IS_NULL':
      return { query: present, negate: !criterion.negated };
  }
}

function literal(value: string): string {
  return literalWildcard(fold(value));
}

function foldedWildcard(path: string, pattern: string): Query {
  return { wildcard: { [path]: { value: pattern } } };
}

/** Documents matching any of the queries; none for no query. */
function anyOf(queries: readonly Query[]): Query {
  const [first, ...rest] = queries;
  if (first === undefined) return MATCH_NONE;
  return rest.length === 0 ? first : { bool: { should: [...queries], minimum_should_match: 1 } };
}

/**
 * Values equal to one of the criterion's, compared as text. A number or boolean field holds numbers and booleans,
 * whose text is canonical (`100`, `true`): only a criterion value written that way can equal one.
 */
function equalQuery(field: IndexField, values: readonly string[]): Query {
  const kind = valueKind(field);
  if (kind === 'keyword') return { terms: { [field.name]: [...values] } };
  const typed = values.flatMap((value): (number | boolean)[] => {
    if (kind === 'boolean') return value === 'true' || value === 'false' ? [value === 'true'] : [];
    const number = valueNumber(value);
    if (number === undefined || valueText(number) !== value) return [];
    return kind === 'long' && !Number.isSafeInteger(number) ? [] : [number];
  });
  return typed.length === 0 ? MATCH_NONE : { terms: { [field.name]: typed } };
}

/**
 * A comparison: numeric when the criterion value is a number (against the values that are numbers), else by code
 * point against the values' text (a keyword field's own; numbers' and booleans' text is their folded form).
 */
function rangeQuery(field: IndexField, operator: 'gt' | 'gte' | 'lt' | 'lte', value: string): Query {
  const number = valueNumber(value);
  if (number !== undefined) return { range: { [strataPaths.numbers(field.name)]: { [operator]: number } } };
  const path = valueKind(field) === 'keyword' ? field.name : strataPaths.folded(field.name);
  return { range: { [path]: { [operator]: value } } };
}
