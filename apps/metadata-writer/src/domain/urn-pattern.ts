import { RE2JS } from 're2js';
import { BadRequestError } from '@strata/model';

/** The longest `urnLike` pattern accepted: longer than any URN the catalog takes. */
export const MAX_URN_PATTERN_LENGTH = 2_000;

/**
 * Which URNs a restore's `urnLike` selects. Two forms are accepted, told apart by one rule: a pattern holding `%` is
 * SQL LIKE, as DataHub's own restore and its Python client send it (`%` any run of characters, `_` any one character,
 * `\` escapes either); any other pattern is a regular expression, as the interface documents it, which must match the
 * whole URN. Both run in time linear in the URN's length, whatever the pattern: LIKE by a matcher of its own, regular
 * expressions with RE2 (no backreferences or lookaround; no catastrophic backtracking).
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

type LikeToken = { readonly kind: 'literal'; readonly char: string } | { readonly kind: 'one' | 'any' };

function likePattern(pattern: string): UrnPattern {
  const tokens: LikeToken[] = [];
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index] as string;
    if (char === '\\' && index + 1 < pattern.length) {
      index += 1;
      tokens.push({ kind: 'literal', char: pattern[index] as string });
    } else if (char === '%') {
      if (tokens.at(-1)?.kind !== 'any') tokens.push({ kind: 'any' });
    } else {
      tokens.push(char === '_' ? { kind: 'one' } : { kind: 'literal', char });
    }
  }
  let prefix = '';
  for (const token of tokens) {
    if (token.kind !== 'literal') break;
    prefix += token.char;
  }
  return { kind: 'like', prefix, matches: (urn) => likeMatches(tokens, Array.from(urn)) };
}

/**
 * Wildcard matching without backtracking blow-up: the classic greedy walk that remembers only the last `%`, which is
 * O(n·m) at worst. Compared by code point, case-sensitively (DataHub's URN column has a binary collation).
 */
function likeMatches(tokens: readonly LikeToken[], text: readonly string[]): boolean {
  let t = 0;
  let p = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    const token = tokens[p];
    if (token !== undefined && (token.kind === 'one' || (token.kind === 'literal' && token.char === text[t]))) {
      t += 1;
      p += 1;
    } else if (token?.kind === 'any') {
      star = p;
      p += 1;
      resume = t;
    } else if (star >= 0) {
      p = star + 1;
      resume += 1;
      t = resume;
    } else {
      return false;
    }
  }
  while (tokens[p]?.kind === 'any') p += 1;
  return p === tokens.length;
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
