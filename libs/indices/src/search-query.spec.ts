import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { testEntityRegistry } from '@strata/model/testing';

import { fold, globMatches, matchedFields, parseSearchQuery, type QueryNode } from './search-query';
import { createSearchSchema, type EntitySearchSchema } from './search-schema';

const dataset = createSearchSchema(testEntityRegistry()).entity('dataset') as EntitySearchSchema;

/** The glob of search text, as the parser folds it. */
function globOf(input: string): string {
  const node: QueryNode = parseSearchQuery(input, dataset);
  if (node.kind !== 'wildcard') throw new Error(`${input} is no wildcard: ${JSON.stringify(node)}`);
  return node.pattern;
}

/**
 * The regular expression globs used to compile to: the semantics to keep, as a reference (it backtracks, so only
 * over short values).
 */
function regularExpressionMatches(pattern: string, value: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 'su').test(fold(value));
}

describe('globMatches', () => {
  it('given a glob from search text, when matched, then case and accents are folded on both sides', () => {
    expect(globMatches(globOf('Caf?_*'), 'CAFÉ_Orders')).toBe(true);
    expect(globMatches(globOf('*ÉES'), 'hr.employees')).toBe(true);
    expect(globMatches(globOf('sales.c?stomers'), 'Sales.Customers')).toBe(true);
    expect(globMatches(globOf('sales.c?stomers'), 'sales.cstomers')).toBe(false);
  });

  it('given characters special to regular expressions, when matched, then they are literal', () => {
    expect(globMatches('a.b*', 'a.b(c)')).toBe(true);
    expect(globMatches('a.b*', 'axb')).toBe(false);
    expect(globMatches('(x|y)+\\?*', '(x|y)+\\!')).toBe(true);
    expect(globMatches('$^*', '$^')).toBe(true);
  });

  it('given values over several lines, when matched, then * and ? take line breaks too', () => {
    expect(globMatches('first*last', 'first line\nlast')).toBe(true);
    expect(globMatches('a?b', 'a\nb')).toBe(true);
  });

  it('given any glob and value, when matched, then the answer is the one of the regular expression it replaced', () => {
    const char = fc.constantFrom('a', 'B', 'é', 'É', '.', '\\', '(', '\n', '\u{1F600}', 'ﬁ');
    const pattern = fc
      .array(fc.oneof(char, fc.constantFrom('*', '?')), { maxLength: 8 })
      .map((chars) => fold(chars.join('')));
    const value = fc.array(char, { maxLength: 12 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(pattern, value, (glob, text) => {
        expect(globMatches(glob, text)).toBe(regularExpressionMatches(glob, text));
      }),
      { numRuns: 3_000 },
    );
  });

  // The reproducer: as a backtracking regular expression, this search over one description of 1,000 characters held
  // the event loop for seconds, and over this one for minutes. The bound itself is asserted by WildcardPattern's cost
  // tests, which count comparisons.
  it('given a glob of many stars and a long description it almost matches, when its fields are matched, then it answers at once', () => {
    const description = 'e'.repeat(1_000);
    const query = parseSearchQuery('*e*e*e*e*z', dataset);
    expect(globMatches(globOf('*e*e*e*e*z'), description)).toBe(false);
    expect(matchedFields({ description: [description] }, query, dataset)).toEqual([]);
    expect(matchedFields({ description: [`${description}z`] }, query, dataset)).toEqual([
      { name: 'description', value: `${description}z` },
    ]);
  });
});
