/**
 * Wildcard patterns over whole texts — search globs (`*`, `?`) and SQL LIKE (`%`, `_`, `\`) — matched in time linear
 * in the text, whatever the pattern: no backtracking. No I/O; a match is synchronous.
 */

/**
 * One element of a wildcard pattern: literal text, compared by code point and case-sensitively (folding is the
 * caller's); any one code point; or any run of code points, the empty run included.
 */
export type WildcardToken =
  { readonly kind: 'literal'; readonly text: string } | { readonly kind: 'anyOne' } | { readonly kind: 'anyRun' };

/**
 * Counts the work of a match, for tests that assert its bound without timing it: `comparisons` grows by one per
 * comparison of a text code point with a pattern position, and by the number of 32-bit words of state per code point
 * read by the search of a segment holding any-one wildcards (see {@link WildcardPattern}).
 */
export interface MatchCounter {
  comparisons: number;
}

/** The tokens of a search glob: `*` any run, `?` any one code point, every other character literal (no escapes). */
export function globTokens(pattern: string): WildcardToken[] {
  const tokens: WildcardToken[] = [];
  for (const char of pattern) {
    if (char === '*') tokens.push({ kind: 'anyRun' });
    else if (char === '?') tokens.push({ kind: 'anyOne' });
    else tokens.push({ kind: 'literal', text: char });
  }
  return tokens;
}

/**
 * The tokens of an SQL LIKE pattern: `%` any run, `_` any one code point, `\` makes the next code point literal (a
 * trailing `\` is itself literal), every other character literal.
 */
export function likeTokens(pattern: string): WildcardToken[] {
  const tokens: WildcardToken[] = [];
  let escaped = false;
  for (const char of pattern) {
    if (escaped) {
      tokens.push({ kind: 'literal', text: char });
      escaped = false;
    } else if (char === '\\') escaped = true;
    else if (char === '%') tokens.push({ kind: 'anyRun' });
    else if (char === '_') tokens.push({ kind: 'anyOne' });
    else tokens.push({ kind: 'literal', text: char });
  }
  if (escaped) tokens.push({ kind: 'literal', text: '\\' });
  return tokens;
}

/** Marks an any-one wildcard among a segment's code points (no code point is negative). */
const ANY_ONE = -1;
const WORD_BITS = 32;

/**
 * The comparisons of the match under way, and the buffer its text's code points are read into: matching is
 * synchronous and calls nothing outside this module, so no two matches share them. Reusing one buffer instead of a new
 * array per text makes a match of a short value several times cheaper.
 */
let comparisons = 0;
let scratch = new Int32Array(256);
/** Texts up to this many UTF-16 code units are read into the reused buffer; longer ones into their own. */
const SCRATCH_LIMIT = 1 << 16;

/**
 * A compiled wildcard pattern that must match the whole text.
 *
 * The pattern is cut at its any-run wildcards into segments (adjacent runs are one). The first segment must match at
 * the start of the text, the last at its end, and each middle one is taken at its leftmost occurrence after the one
 * before: with any-run as the only variable-length wildcard, the leftmost occurrence leaves the most text to the
 * segments after it, so if any placement matches, that one does. Each text position is therefore read by one segment
 * search only:
 *
 * - a segment of literals only is found with Knuth–Morris–Pratt, at most 2 comparisons per code point read;
 * - a segment holding any-one wildcards is found with the bit-parallel Shift-And automaton, ⌈m/32⌉ word operations
 *   per code point read for a segment of m code points.
 *
 * So a match of a text of n code points against a pattern of m costs at most m + n·max(2, ⌈k/32⌉) comparisons (as
 * {@link MatchCounter} counts them), k being the longest segment holding an any-one wildcard: O(n + m) when k ≤ 64,
 * O(n·⌈m/32⌉ + m) at worst, plus O(n) to read the text's code points. Compiling costs O(m), plus O(k·d) for each
 * segment of k code points holding any-one wildcards and d distinct code points. Instances are immutable: compile
 * once, match many texts.
 */
export class WildcardPattern {
  /** The literal text every match starts with (up to the first wildcard): where a scan of sorted texts may start. */
  readonly literalPrefix: string;
  /** The segment anchored at the start, the segments found left to right, the segment anchored at the end. */
  private readonly first: Segment;
  private readonly middle: readonly Segment[];
  private readonly last: Segment | undefined;
  /** The fewest code points a matching text has. */
  private readonly minimumLength: number;

  private constructor(tokens: readonly WildcardToken[]) {
    let literalPrefix = '';
    for (const token of tokens) {
      if (token.kind !== 'literal') break;
      literalPrefix += token.text;
    }
    this.literalPrefix = literalPrefix;
    const runs: number[][] = [[]];
    for (const token of tokens) {
      const current = runs[runs.length - 1] as number[];
      if (token.kind === 'anyRun') {
        // Adjacent runs are one run: only the first opens a segment.
        if (current.length > 0 || runs.length === 1) runs.push([]);
      } else if (token.kind === 'anyOne') current.push(ANY_ONE);
      else for (const char of token.text) current.push(char.codePointAt(0) as number);
    }
    const segments = runs.map((codePoints) => new Segment(codePoints));
    this.first = segments[0] as Segment;
    this.last = segments.length > 1 ? segments[segments.length - 1] : undefined;
    this.middle = segments.slice(1, -1);
    this.minimumLength = segments.reduce((total, segment) => total + segment.length, 0);
  }

  /** Compiles a pattern from its tokens (see {@link globTokens}, {@link likeTokens}). */
  static compile(tokens: readonly WildcardToken[]): WildcardPattern {
    return new WildcardPattern(tokens);
  }

  /**
   * Whether the pattern matches the whole text, comparing code points exactly. Linear in the text (see the class);
   * `counter`, when given, is incremented by the comparisons made.
   */
  matches(text: string, counter?: MatchCounter): boolean {
    if (text.length < this.minimumLength) return false;
    comparisons = 0;
    const buffer = text.length > scratch.length ? largerBuffer(text.length) : scratch;
    const matched = this.matchCodePoints(buffer, readCodePoints(text, buffer));
    if (counter !== undefined) counter.comparisons += comparisons;
    return matched;
  }

  private matchCodePoints(text: Int32Array, length: number): boolean {
    if (length < this.minimumLength) return false;
    const first = this.first;
    const last = this.last;
    if (last === undefined) return length === first.length && first.matchesAt(text, 0);
    const end = length - last.length;
    if (!first.matchesAt(text, 0) || !last.matchesAt(text, end)) return false;
    let from = first.length;
    const middle = this.middle;
    for (let index = 0; index < middle.length; index += 1) {
      from = (middle[index] as Segment).findEnd(text, from, end);
      if (from < 0) return false;
    }
    return true;
  }
}

/** The code points between two any-run wildcards, with what finding them needs, built once. */
class Segment {
  readonly length: number;
  private readonly codePoints: Int32Array;
  /** Knuth–Morris–Pratt's failure function, for a segment of literals only. */
  private readonly failure: Int32Array | undefined;
  /** Shift-And's masks, for a segment holding any-one wildcards: which positions accept a code point. */
  private readonly shiftAnd: ShiftAndMasks | undefined;

  constructor(codePoints: readonly number[]) {
    this.length = codePoints.length;
    this.codePoints = Int32Array.from(codePoints);
    if (codePoints.includes(ANY_ONE)) {
      this.failure = undefined;
      this.shiftAnd = new ShiftAndMasks(codePoints);
    } else {
      this.failure = failureFunction(codePoints);
      this.shiftAnd = undefined;
    }
  }

  /** Whether the segment matches the text at `start` (the text has room for it there). */
  matchesAt(text: Int32Array, start: number): boolean {
    const pattern = this.codePoints;
    const length = this.length;
    for (let index = 0; index < length; index += 1) {
      const expected = pattern[index] as number;
      if (expected !== ANY_ONE && expected !== text[start + index]) {
        comparisons += index + 1;
        return false;
      }
    }
    comparisons += length;
    return true;
  }

  /** Where the segment's leftmost occurrence within `text[from, until)` ends, or -1 when it has none. */
  findEnd(text: Int32Array, from: number, until: number): number {
    if (this.failure !== undefined) return this.findLiteral(this.failure, text, from, until);
    const masks = this.shiftAnd as ShiftAndMasks;
    return masks.words === 1
      ? this.findInOneWord(masks, text, from, until)
      : this.findInWords(masks, text, from, until);
  }

  /** Knuth–Morris–Pratt: each code point read costs one comparison plus those given back by the failure function. */
  private findLiteral(failure: Int32Array, text: Int32Array, from: number, until: number): number {
    const pattern = this.codePoints;
    const length = this.length;
    let matched = 0;
    let compared = 0;
    for (let index = from; index < until; index += 1) {
      const char = text[index];
      while (matched > 0 && pattern[matched] !== char) {
        compared += 1;
        matched = failure[matched - 1] as number;
      }
      compared += 1;
      if (pattern[matched] === char) matched += 1;
      if (matched === length) {
        comparisons += compared;
        return index + 1;
      }
    }
    comparisons += compared;
    return -1;
  }

  /**
   * Shift-And: bit j of the state is set when the segment's first j + 1 code points end at the code point just read.
   * Each code point read shifts the state by one and keeps the bits of positions that accept it. This is the
   * one-word form, for segments of at most 32 code points.
   */
  private findInOneWord(masks: ShiftAndMasks, text: Int32Array, from: number, until: number): number {
    const accepting = masks.accepting;
    const lastBit = 1 << (this.length - 1);
    let state = 0;
    for (let index = from; index < until; index += 1) {
      state = ((state << 1) | 1) & (accepting[masks.rowOf(text[index] as number)] as number);
      if ((state & lastBit) !== 0) {
        comparisons += index + 1 - from;
        return index + 1;
      }
    }
    comparisons += Math.max(0, until - from);
    return -1;
  }

  /** Shift-And over a state of several words, carrying each word's top bit into the next. */
  private findInWords(masks: ShiftAndMasks, text: Int32Array, from: number, until: number): number {
    const { words, accepting } = masks;
    const lastWord = words - 1;
    const lastBit = 1 << ((this.length - 1) % WORD_BITS);
    const state = new Int32Array(words);
    for (let index = from; index < until; index += 1) {
      const row = masks.rowOf(text[index] as number) * words;
      let carry = 1;
      for (let word = 0; word < words; word += 1) {
        const previous = state[word] as number;
        state[word] = ((previous << 1) | carry) & (accepting[row + word] as number);
        carry = previous >>> (WORD_BITS - 1);
      }
      if (((state[lastWord] as number) & lastBit) !== 0) {
        comparisons += (index + 1 - from) * words;
        return index + 1;
      }
    }
    comparisons += Math.max(0, until - from) * words;
    return -1;
  }
}

/** Code points below this find their row of Shift-And masks in an array rather than a map. */
const DIRECT_CODE_POINTS = 128;

/** The masks of a Shift-And automaton: one row of `words` words per literal code point of the segment, and one more. */
class ShiftAndMasks {
  /** 32-bit words per state. */
  readonly words: number;
  /**
   * Row 0: the positions accepting any code point, the any-one wildcards'. Row r > 0: the positions accepting the
   * r-th distinct literal code point of the segment: its own and the any-one wildcards'.
   */
  readonly accepting: Int32Array;
  private readonly directRows = new Int32Array(DIRECT_CODE_POINTS);
  private readonly otherRows = new Map<number, number>();

  constructor(codePoints: readonly number[]) {
    const words = Math.ceil(codePoints.length / WORD_BITS);
    this.words = words;
    const literals = [...new Set(codePoints.filter((codePoint) => codePoint !== ANY_ONE))];
    literals.forEach((codePoint, index) => {
      if (codePoint < DIRECT_CODE_POINTS) this.directRows[codePoint] = index + 1;
      else this.otherRows.set(codePoint, index + 1);
    });
    this.accepting = new Int32Array((literals.length + 1) * words);
    codePoints.forEach((codePoint, position) => {
      const bit = 1 << (position % WORD_BITS);
      const word = Math.floor(position / WORD_BITS);
      if (codePoint !== ANY_ONE) {
        const row = this.rowOf(codePoint) * words;
        this.accepting[row + word] = (this.accepting[row + word] as number) | bit;
        return;
      }
      for (let row = 0; row <= literals.length; row += 1) {
        this.accepting[row * words + word] = (this.accepting[row * words + word] as number) | bit;
      }
    });
  }

  /** The row of masks for a code point (0 for one that is no literal of the segment). */
  rowOf(codePoint: number): number {
    return codePoint < DIRECT_CODE_POINTS
      ? (this.directRows[codePoint] as number)
      : (this.otherRows.get(codePoint) ?? 0);
  }
}

/** For each prefix of the pattern, the length of its longest proper prefix that is also its suffix. */
function failureFunction(pattern: readonly number[]): Int32Array {
  const failure = new Int32Array(pattern.length);
  let matched = 0;
  for (let index = 1; index < pattern.length; index += 1) {
    while (matched > 0 && pattern[index] !== pattern[matched]) matched = failure[matched - 1] as number;
    if (pattern[index] === pattern[matched]) matched += 1;
    failure[index] = matched;
  }
  return failure;
}

function largerBuffer(length: number): Int32Array {
  const buffer = new Int32Array(Math.max(length, scratch.length * 2));
  if (length <= SCRATCH_LIMIT) scratch = buffer;
  return buffer;
}

/**
 * Reads the text's code points into the buffer, answering how many: a lone surrogate is one, as in a string's
 * iteration and a `u` regular expression.
 */
function readCodePoints(text: string, buffer: Int32Array): number {
  let length = 0;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        buffer[length] = (unit - 0xd800) * 0x400 + (next - 0xdc00) + 0x10000;
        length += 1;
        index += 1;
        continue;
      }
    }
    buffer[length] = unit;
    length += 1;
  }
  return length;
}
