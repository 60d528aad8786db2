import { RE2JS } from 're2js';
import { BadRequestError, likeTokens, WildcardPattern } from '@strata/model';

/** The longest `urnLike` pattern accepted: longer than any URN the catalog takes. */
export const MAX_URN_PATTERN_LENGTH = 2_000;

/**
 * Which URNs a restore's `urnLike` selects. Two forms are accepted, told apart by one rule: a pattern holding `%` is
 * SQL LIKE, as DataHub's own restore and its Python client send it (`%` any run of characters, `_` any one character,
 * `\` escapes either); any other pattern is a regular expression, as the interface documents it, which must match the
 * whole URN. Neither backtracks: LIKE runs in time linear in the URN's length whatever the pattern (by
 * {@link WildcardPattern}: a restore tests every URN it walks), regular expressions run with RE2 (no backreferences or
 * lookaround), in time linear in the URN for a given expression (its NFA simulation is O(n·m) at worst).
 */
export interface UrnPattern {
  readonly kind: 'like' | 'regex';
  /** Every matching URN starts with this (the literal text before the first wildcard): where a scan may start. */
  readonly prefix: string;
  readonly matches: (urn: string) => boolean;
}

/** Compiles a pattern; a malformed one is a 400 naming the problem. */
export function compileUrnPattern(pattern: string): UrnPattern {
  if (pattern.length > MAX_URN_PATTERN_LENGTH) {
    throw new BadRequestError(`urnLike is longer than ${MAX_URN_PATTERN_LENGTH} characters`);
  }
  return pattern.includes('%') ? likePattern(pattern) : regexPattern(pattern);
}

function likePattern(pattern: string): UrnPattern {
  const compiled = WildcardPattern.compile(likeTokens(pattern));
  // Compared by code point, case-sensitively (DataHub's URN column has a binary collation).
  return { kind: 'like', prefix: compiled.literalPrefix, matches: (urn) => compiled.matches(urn) };
}

function regexPattern(pattern: string): UrnPattern {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new BadRequestError(`urnLike is not a valid regular expression: ${reason}`);
  }
  return { kind: 'regex', prefix: literalPrefixOf(pattern), matches: (urn) => compiled.matches(urn) };
}

/** The text every match of a regular expression starts with: its leading characters that are not special. */
function literalPrefixOf(pattern: string): string {
  const literal = /^[A-Za-z0-9:,\-_ ]*/.exec(pattern.startsWith('^') ? pattern.slice(1) : pattern)?.[0] ?? '';
  // A quantifier or alternation right after the literal run may apply to (or exclude) its last character.
  const next = pattern.slice((pattern.startsWith('^') ? 1 : 0) + literal.length)[0];
  if (next === '*' || next === '?' || next === '{' || next === '+') return literal.slice(0, -1);
  return pattern.includes('|') ? '' : literal;
}
