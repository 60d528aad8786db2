import fc from 'fast-check';
import { globTokens, likeTokens, WildcardPattern, type MatchCounter, type WildcardToken } from './wildcard-pattern';

const glob = (pattern: string) => WildcardPattern.compile(globTokens(pattern));
const like = (pattern: string) => WildcardPattern.compile(likeTokens(pattern));

const SMILE = '\u{1F600}';
const ROCKET = '\u{1F680}';

/**
 * The reference: dynamic programming over (pattern prefix, text prefix), O(n·m) and obviously right. Code points are
 * those of a string's iteration, as the matcher's.
 */
function referenceMatches(tokens: readonly WildcardToken[], text: string): boolean {
  type Item =
    { readonly kind: 'literal'; readonly char: string } | { readonly kind: 'anyOne' } | { readonly kind: 'anyRun' };
  const pattern = tokens.flatMap((token): Item[] =>
    token.kind === 'literal' ? Array.from(token.text, (char) => ({ kind: 'literal', char })) : [token],
  );
  const chars = Array.from(text);
  // matches[j]: the pattern's prefix read so far matches the text's first j code points.
  let matches = chars.map(() => false);
  matches.unshift(true);
  for (const token of pattern) {
    const next = [token.kind === 'anyRun' && (matches[0] as boolean)];
    for (let j = 1; j <= chars.length; j += 1) {
      if (token.kind === 'anyRun') next.push((matches[j] as boolean) || (next[j - 1] as boolean));
      else if (token.kind === 'anyOne') next.push(matches[j - 1] as boolean);
      else next.push((matches[j - 1] as boolean) && chars[j - 1] === token.char);
    }
    matches = next;
  }
  return matches[chars.length] as boolean;
}

function counted(pattern: WildcardPattern, text: string): { matched: boolean; comparisons: number } {
  const counter: MatchCounter = { comparisons: 0 };
  const matched = pattern.matches(text, counter);
  return { matched, comparisons: counter.comparisons };
}

describe('WildcardPattern', () => {
  it('given the empty pattern, when matched, then only the empty text matches', () => {
    expect(glob('').matches('')).toBe(true);
    expect(glob('').matches('a')).toBe(false);
    expect(like('').matches('')).toBe(true);
  });

  it('given a pattern of any-run wildcards only, when matched, then every text matches, the empty one included', () => {
    for (const pattern of [glob('*'), glob('***'), like('%'), like('%%')]) {
      expect(pattern.matches('')).toBe(true);
      expect(pattern.matches('anything at all\n')).toBe(true);
    }
  });

  it('given literals only, when matched, then the whole text must be equal, case-sensitively', () => {
    expect(glob('orders').matches('orders')).toBe(true);
    expect(glob('orders').matches('orders_v1')).toBe(false);
    expect(glob('orders').matches('my_orders')).toBe(false);
    expect(glob('orders').matches('Orders')).toBe(false);
  });

  it('given leading and trailing any-run wildcards, when matched, then they anchor the rest at the end or the start', () => {
    expect(glob('*ers').matches('users')).toBe(true);
    expect(glob('*ers').matches('users_v1')).toBe(false);
    expect(glob('fct_*').matches('fct_users')).toBe(true);
    expect(glob('fct_*').matches('dim_fct_users')).toBe(false);
    expect(glob('*user*').matches('user')).toBe(true);
    expect(glob('*user*').matches('fct_users_deleted')).toBe(true);
    expect(glob('*user*').matches('fct_usr')).toBe(false);
    expect(glob('fct_*_deleted').matches('fct_users_deleted')).toBe(true);
    expect(glob('fct_*_deleted').matches('fct_deleted')).toBe(false);
  });

  it('given segments that could overlap, when matched, then the start and end segments do not share code points', () => {
    expect(glob('ab*ba').matches('aba')).toBe(false);
    expect(glob('ab*ba').matches('abba')).toBe(true);
    expect(glob('a*a*a').matches('aa')).toBe(false);
    expect(glob('a*a*a').matches('aaa')).toBe(true);
  });

  it('given adjacent wildcards, when matched, then runs merge and each any-one takes exactly one code point', () => {
    expect(glob('a**b').matches('ab')).toBe(true);
    expect(glob('a*?*b').matches('ab')).toBe(false);
    expect(glob('a*?*b').matches('axb')).toBe(true);
    expect(glob('a?*b').matches('axyzb')).toBe(true);
    expect(glob('a*??b').matches('axb')).toBe(false);
    expect(glob('??').matches('ab')).toBe(true);
    expect(glob('??').matches('abc')).toBe(false);
  });

  it('given any-one wildcards at the edges of segments, when matched, then they take one code point there', () => {
    expect(glob('?rders').matches('orders')).toBe(true);
    expect(glob('order?').matches('orders')).toBe(true);
    expect(glob('order?').matches('order')).toBe(false);
    expect(glob('*?x?*').matches('axb')).toBe(true);
    expect(glob('*?x?*').matches('xb')).toBe(false);
    expect(glob('a*?b?*c').matches('a_b_c')).toBe(true);
    expect(glob('a*?b?*c').matches('abc')).toBe(false);
  });

  it('given any-one wildcards, when matched against astral and other multi-byte characters, then each takes one code point', () => {
    expect(glob('?').matches(SMILE)).toBe(true);
    expect(glob('??').matches(SMILE)).toBe(false);
    expect(glob('a?c').matches(`a${SMILE}c`)).toBe(true);
    expect(glob('*?b*').matches(`${SMILE}b`)).toBe(true);
    expect(glob(`*${SMILE}?${ROCKET}*`).matches(`x${SMILE}é${ROCKET}y`)).toBe(true);
    expect(like('_').matches('é')).toBe(true);
    // A lone surrogate is one code point, as in a `u` regular expression.
    expect(glob('a?b').matches('a\uD800b')).toBe(true);
    expect(glob('a\uD800b').matches(`a${SMILE}b`)).toBe(false);
  });

  it('given any-one wildcards in segments longer than one 32-bit word, when matched, then the state carries across words', () => {
    const segment = 'x'.repeat(31) + '?' + '?' + 'y'.repeat(30) + '?' + '?z';
    const fits = 'x'.repeat(31) + 'ab' + 'y'.repeat(30) + 'cdz';
    expect(glob(`*${segment}*`).matches(`qq${fits}qq`)).toBe(true);
    expect(glob(`*${segment}*`).matches(`qq${fits.slice(0, -1)}qq`)).toBe(false);
    expect(glob(`*${segment}*`).matches(`qq${fits.replace('ab', 'a')}qq`)).toBe(false);
  });

  it('given several occurrences of a middle segment, when matched, then the leftmost leaves room for the rest', () => {
    expect(glob('*ab*ab*').matches('xabyabz')).toBe(true);
    expect(glob('*ab*ab*').matches('xabyz')).toBe(false);
    expect(glob('*aab*ab').matches('aaaabab')).toBe(true);
  });

  it('given a literal prefix, when compiled, then it is the text up to the first wildcard', () => {
    expect(like('urn:li:dataset:%').literalPrefix).toBe('urn:li:dataset:');
    expect(like('urn:li:\\%x_%').literalPrefix).toBe('urn:li:%x');
    expect(glob('*x').literalPrefix).toBe('');
    expect(glob('abc').literalPrefix).toBe('abc');
  });
});

describe('likeTokens', () => {
  it('given escapes, when tokenized, then the escaped character is literal and a trailing backslash is itself', () => {
    expect(like('%a\\_b%').matches('xa_by')).toBe(true);
    expect(like('%a\\_b%').matches('xaxby')).toBe(false);
    expect(like('100\\%').matches('100%')).toBe(true);
    expect(like('100\\%').matches('1000')).toBe(false);
    expect(like('a\\\\b').matches('a\\b')).toBe(true);
    expect(like('a\\').matches('a\\')).toBe(true);
    expect(like(`\\${SMILE}_`).matches(`${SMILE}x`)).toBe(true);
    expect(likeTokens('\\*?')).toEqual([
      { kind: 'literal', text: '*' },
      { kind: 'literal', text: '?' },
    ]);
  });

  it('given glob characters, when tokenized as LIKE, then they are literal; and LIKE characters are literal in globs', () => {
    expect(like('a*b').matches('axb')).toBe(false);
    expect(like('a*b').matches('a*b')).toBe(true);
    expect(glob('a%b').matches('axb')).toBe(false);
    expect(glob('a_b\\').matches('a_b\\')).toBe(true);
  });
});

describe('WildcardPattern against a reference', () => {
  const alphabet = ['a', 'b', SMILE, '\uD800'];
  const token: fc.Arbitrary<WildcardToken> = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...alphabet).map((text) => ({ kind: 'literal' as const, text })) },
    { weight: 1, arbitrary: fc.constant({ kind: 'anyOne' as const }) },
    { weight: 2, arbitrary: fc.constant({ kind: 'anyRun' as const }) },
  );
  const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 24 }).map((chars) => chars.join(''));
  /** A text the pattern matches by construction: every wildcard replaced by code points it accepts. */
  const instance = (tokens: readonly WildcardToken[]) =>
    fc
      .tuple(...tokens.map((each) => (each.kind === 'literal' ? fc.constant(each.text) : runOf(each))))
      .map((parts) => parts.join(''));
  const runOf = (each: WildcardToken) =>
    each.kind === 'anyOne'
      ? fc.constantFrom(...alphabet)
      : fc.array(fc.constantFrom(...alphabet), { maxLength: 4 }).map((chars) => chars.join(''));

  it('given any pattern and text, when matched, then the answer is the reference one', () => {
    fc.assert(
      fc.property(fc.array(token, { maxLength: 10 }), text, (tokens, value) => {
        expect(WildcardPattern.compile(tokens).matches(value)).toBe(referenceMatches(tokens, value));
      }),
      { numRuns: 2_000 },
    );
  });

  it('given a text built from the pattern, when matched, then it matches', () => {
    fc.assert(
      fc.property(
        fc.array(token, { maxLength: 10 }).chain((tokens) => fc.tuple(fc.constant(tokens), instance(tokens))),
        ([tokens, value]) => {
          expect(WildcardPattern.compile(tokens).matches(value)).toBe(true);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('given segments with any-one wildcards spanning several words, when matched, then the answer is the reference one', () => {
    const long = fc.array(
      fc.oneof(
        { weight: 6, arbitrary: fc.constant({ kind: 'literal' as const, text: 'a' }) },
        { weight: 1, arbitrary: fc.constant({ kind: 'literal' as const, text: 'b' }) },
        { weight: 1, arbitrary: fc.constant({ kind: 'anyOne' as const }) },
        { weight: 1, arbitrary: fc.constant({ kind: 'anyRun' as const }) },
      ),
      { minLength: 30, maxLength: 90 },
    );
    const longText = fc.array(fc.constantFrom('a', 'a', 'a', 'b'), { maxLength: 160 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(long, longText, (tokens, value) => {
        expect(WildcardPattern.compile(tokens).matches(value)).toBe(referenceMatches(tokens, value));
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(
        long.chain((tokens) => fc.tuple(fc.constant(tokens), instance(tokens))),
        ([tokens, value]) => {
          expect(WildcardPattern.compile(tokens).matches(value)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('WildcardPattern cost', () => {
  it('given any short pattern and text, when matched, then it compares at most 2 per text code point plus the pattern length', () => {
    const token: fc.Arbitrary<WildcardToken> = fc.oneof(
      fc.constantFrom('a', 'b').map((text) => ({ kind: 'literal' as const, text })),
      fc.constant({ kind: 'anyOne' as const }),
      fc.constant({ kind: 'anyRun' as const }),
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 30 }), fc.stringMatching(/^[ab]{0,200}$/), (tokens, value) => {
        const { comparisons } = counted(WildcardPattern.compile(tokens), value);
        expect(comparisons).toBeLessThanOrEqual(2 * value.length + tokens.length);
      }),
      { numRuns: 1_000 },
    );
  });

  // The search reproducer: `*e*e*e*e*z` over a long description backtracked for seconds as a regular expression, the
  // work growing with the text's length to the power of the stars.
  it('given many any-run wildcards over a long text that almost matches, when matched, then the work is linear in the text', () => {
    const pattern = glob('*e*e*e*e*z');
    for (const length of [1_000, 100_000]) {
      const { matched, comparisons } = counted(pattern, 'e'.repeat(length));
      expect(matched).toBe(false);
      expect(comparisons).toBeLessThanOrEqual(2 * length + 10);
    }
  });

  // The restore reproducer: `%` then 400 `a` then `b`, over names of `a`s, cost a comparison per pattern character at
  // each text position with a greedy walk (O(n·m)).
  it('given a long literal segment over a text of near misses, when matched, then the work is linear in the text', () => {
    const pattern = like(`%${'a'.repeat(400)}b`);
    for (const length of [430, 10_000]) {
      const { matched, comparisons } = counted(pattern, 'a'.repeat(length));
      expect(matched).toBe(false);
      expect(comparisons).toBeLessThanOrEqual(2 * length + 402);
    }
    const middle = like(`%${'a'.repeat(400)}b%`);
    const { matched, comparisons } = counted(middle, 'a'.repeat(10_000));
    expect(matched).toBe(false);
    expect(comparisons).toBeLessThanOrEqual(2 * 10_000 + 402);
  });

  it('given a segment with any-one wildcards over a text of near misses, when matched, then each code point costs one word per 32 pattern positions', () => {
    const segment = `${'a'.repeat(200)}_${'a'.repeat(199)}b`;
    const words = Math.ceil(segment.length / 32);
    const { matched, comparisons } = counted(like(`%${segment}%`), 'a'.repeat(10_000));
    expect(matched).toBe(false);
    expect(comparisons).toBeLessThanOrEqual(10_000 * words);
    const short = counted(glob('*a?a?a?z*'), 'a'.repeat(10_000));
    expect(short.matched).toBe(false);
    expect(short.comparisons).toBeLessThanOrEqual(10_000);
  });
});
