import type { estypes } from '@elastic/elasticsearch';
import type { Criterion, Filter } from './search-index';

/** The range operator of each comparing condition. */
export const RANGES = {
  GREATER_THAN: 'gt',
  GREATER_THAN_OR_EQUAL_TO: 'gte',
  LESS_THAN: 'lt',
  LESS_THAN_OR_EQUAL_TO: 'lte',
} as const;

/**
 * An OR of AND groups (resolved) as one query, each criterion turned into a query by `criterionQuery`: a query matching
 * what the criterion keeps, or (`negate`) what it drops. Undefined when it filters nothing: no groups, or a group
 * without criteria. The search and the timeseries indices build their filters this way.
 */
export function orOfAndQuery(
  filter: Filter,
  criterionQuery: (criterion: Criterion) => { query: estypes.QueryDslQueryContainer; negate: boolean },
): estypes.QueryDslQueryContainer | undefined {
  if (filter.length === 0 || filter.some((group) => group.length === 0)) return undefined;
  const groups = filter.map((group): estypes.QueryDslQueryContainer => {
    const positive: estypes.QueryDslQueryContainer[] = [];
    const negative: estypes.QueryDslQueryContainer[] = [];
    for (const criterion of group) {
      const { query, negate } = criterionQuery(criterion);
      (negate ? negative : positive).push(query);
    }
    return {
      bool: {
        ...(positive.length === 0 ? {} : { filter: positive }),
        ...(negative.length === 0 ? {} : { must_not: negative }),
      },
    };
  });
  return groups.length === 1 ? groups[0] : { bool: { should: groups, minimum_should_match: 1 } };
}
