import { compileUrnPattern } from './urn-pattern';

const hive = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
const kafka = 'urn:li:dataset:(urn:li:dataPlatform:kafka,orders_v1,PROD)';

describe('compileUrnPattern', () => {
  it('given a pattern with %, when compiled, then it is SQL LIKE: % any run, _ one character, case-sensitive', () => {
    const pattern = compileUrnPattern('urn:li:dataset:(urn:li:dataPlatform:hive,%');
    expect(pattern).toMatchObject({ kind: 'like', prefix: 'urn:li:dataset:(urn:li:dataPlatform:hive,' });
    expect(pattern.matches(hive)).toBe(true);
    expect(pattern.matches(kafka)).toBe(false);
    expect(compileUrnPattern('%orders_v_%').matches(kafka)).toBe(true);
    expect(compileUrnPattern('%ORDERS%').matches(kafka)).toBe(false);
    expect(compileUrnPattern('%,PROD)').matches(hive)).toBe(true);
    expect(compileUrnPattern('%,PROD').matches(hive)).toBe(false);
    expect(compileUrnPattern('urn:li:dataset:%hive%orders%').matches(hive)).toBe(true);
  });

  it('given a LIKE pattern with escapes, when compiled, then \\% and \\_ are literal', () => {
    expect(compileUrnPattern('%a\\_b%').matches('urn:li:tag:a_b')).toBe(true);
    expect(compileUrnPattern('%a\\_b%').matches('urn:li:tag:axb')).toBe(false);
    expect(compileUrnPattern('%100\\%').matches('urn:li:tag:100%')).toBe(true);
  });

  it('given a LIKE pattern with characters outside the basic plane, when compiled, then they compare as one code point each', () => {
    const urn = 'urn:li:tag:launch\u{1F680}now';
    expect(compileUrnPattern('%\u{1F680}%').matches(urn)).toBe(true);
    expect(compileUrnPattern('%launch_now').matches(urn)).toBe(true);
    expect(compileUrnPattern('%launch__now').matches(urn)).toBe(false);
    expect(compileUrnPattern('urn:li:tag:launch\u{1F680}%').prefix).toBe('urn:li:tag:launch\u{1F680}');
  });

  it('given a pattern without %, when compiled, then it is a regular expression matching the whole URN', () => {
    const pattern = compileUrnPattern('urn:li:dataset:.*hive.*');
    expect(pattern).toMatchObject({ kind: 'regex', prefix: 'urn:li:dataset:' });
    expect(pattern.matches(hive)).toBe(true);
    expect(pattern.matches(kafka)).toBe(false);
    expect(compileUrnPattern('hive').matches(hive)).toBe(false);
    expect(compileUrnPattern('urn:li:(tag|glossaryTerm):.*').prefix).toBe('');
    expect(compileUrnPattern('urn:li:tags?:x').prefix).toBe('urn:li:tag');
  });

  it('given a malformed regular expression, when compiled, then it is a 400 saying why', () => {
    expect(() => compileUrnPattern('urn:li:(dataset')).toThrow(
      /urnLike is not a valid regular expression: .*missing closing \)/,
    );
    expect(() => compileUrnPattern('x'.repeat(2_001))).toThrow(/longer than 2000/);
  });

  it('given patterns that backtrack catastrophically elsewhere, when matched against a long URN, then they answer at once', () => {
    const long = `urn:li:tag:${'a'.repeat(20_000)}!`;
    expect(compileUrnPattern('urn:li:tag:(a+)+$').matches(long)).toBe(false);
    expect(compileUrnPattern('urn:li:tag:(a|aa)*b').matches(long)).toBe(false);
    expect(compileUrnPattern('%a%a%a%a%a%a%a%a%b').matches(long)).toBe(false);
    // Exponential backtracking would not finish here at all: the suite's time limit is the bound.
  });

  // The restore reproducer: over 10,000 datasets of 430-character names, this pattern held the writer for 13.8 s with
  // a greedy walk costing O(n·m) per URN. The bound itself is asserted by WildcardPattern's cost tests.
  it('given a LIKE pattern of a long literal run, when matched against many long URNs it almost matches, then it answers at once', () => {
    const pattern = compileUrnPattern(`%${'a'.repeat(400)}b`);
    const urns = Array.from(
      { length: 10_000 },
      (_unused, index) => `urn:li:dataset:(urn:li:dataPlatform:hive,${'a'.repeat(425)}${index},PROD)`,
    );
    expect(urns.filter((urn) => pattern.matches(urn))).toEqual([]);
    expect(pattern.matches(`urn:li:tag:${'a'.repeat(430)}b`)).toBe(true);
  });
});
