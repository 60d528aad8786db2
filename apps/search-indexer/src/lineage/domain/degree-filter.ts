import { ValidationError } from '@strata/model';
import type { Criterion, Filter } from '@strata/indices';

/**
 * DataHub's `degree` filter of lineage searches, pure: criteria on the field `degree` with the values `1`, `2` and
 * `3+` (DataHub's "Degree of Dependencies" facet) select results by their smallest number of hops; the other
 * criteria of the filter are the search index's. Each OR group is split in two: its degree test and its other
 * criteria, so that an entity matches a group when both halves do (DataHub reads the degree criteria of the first
 * group only; Strata honours every group). A degree criterion's values are alternatives; `negated` inverts it; its
 * condition is not read (as DataHub); one without values is ignored (as every criterion without values).
 */

export const DEGREE_FIELD = 'degree';

/** The degree facet's values, in DataHub's order. */
export const DEGREE_VALUES = ['1', '2', '3+'] as const;

export type DegreeValue = (typeof DEGREE_VALUES)[number];

/** One OR group of a lineage filter. */
export interface LineageFilterGroup {
  /** Whether an entity at this smallest degree passes the group's degree criteria (all of them). */
  readonly degree: (degree: number) => boolean;
  /** The group's other criteria, for the search index. */
  readonly criteria: readonly Criterion[];
}

export interface LineageFilter {
  /** At least one group: a filter without groups is one group without criteria. */
  readonly groups: readonly LineageFilterGroup[];
  /** The most hops any group can match: a walk need not go further (`Infinity` when unbounded). */
  readonly maxDegree: number;
}

/** Splits a filter's groups into degree tests and search criteria; `ValidationError` for a value not in the facet. */
export function lineageFilterOf(filter: Filter): LineageFilter {
  const groups = filter.length === 0 ? [[]] : filter;
  let maxDegree = 0;
  const split = groups.map((group): LineageFilterGroup => {
    const tests: ((degree: number) => boolean)[] = [];
    let groupMax = Infinity;
    for (const criterion of group) {
      if (criterion.field !== DEGREE_FIELD || criterion.values.length === 0) continue;
      const values = criterion.values.map(degreeValue);
      const test = (degree: number): boolean => values.some((value) => matches(value, degree)) !== criterion.negated;
      tests.push(test);
      if (!criterion.negated) groupMax = Math.min(groupMax, Math.max(...values.map(highest)));
    }
    maxDegree = Math.max(maxDegree, groupMax);
    return {
      degree: (degree) => tests.every((test) => test(degree)),
      criteria: group.filter((criterion) => criterion.field !== DEGREE_FIELD),
    };
  });
  return { groups: split, maxDegree };
}

/** The facet value an entity of this smallest degree counts under. */
export function degreeBucket(degree: number): DegreeValue {
  return degree <= 1 ? '1' : degree === 2 ? '2' : '3+';
}

function degreeValue(value: string): DegreeValue {
  if ((DEGREE_VALUES as readonly string[]).includes(value)) return value as DegreeValue;
  throw new ValidationError(`${value} is not a valid filter value for degree filters`);
}

function matches(value: DegreeValue, degree: number): boolean {
  return value === '3+' ? degree > 2 : degree === Number(value);
}

function highest(value: DegreeValue): number {
  return value === '3+' ? Infinity : Number(value);
}
