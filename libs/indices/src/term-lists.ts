/**
 * The ranked term lists of {@link SqliteSearchIndex}: for a search of one word, the documents holding it grouped by
 * the two numbers FTS5's `bm25` ranks them by — the word's frequency in the default fields weighted by their boosts,
 * and the document's size in tokens — so that a page is read from the best groups, in URN order within a group,
 * instead of scoring every match. Pure: the arithmetic, and what a document contributes.
 *
 * For one word, `bm25` is `-idf × f(weight, size)` with `f` below and `idf` a positive constant of the query, so the
 * order of `f`, descending, is the order of the scores. `f` is computed with FTS5's operations in FTS5's order
 * (`fts5Bm25Function` in SQLite's `fts5_aux.c`), so that two groups are equal here exactly when FTS5 gives them the
 * same score, up to FTS5's last multiplication by `idf` (which can round two neighbouring values of `f` to one score;
 * FTS5 would then order those documents by URN, these lists by `f`).
 */

/** FTS5's `bm25` constants. */
const K1 = 1.2;
const B = 0.75;

/**
 * A word FTS5's `unicode61` tokenizer keeps whole and as is, so that counting the analyzer's words counts FTS5's
 * tokens. A document with any other word (non-ASCII letters, which SQLite's Unicode 6.1 tables may split or fold
 * otherwise than the analyzer) is uncertain: while an entity type has a visible one, its searches take the FTS5 path.
 */
const PLAIN_WORD = /^[a-z0-9]+$/;

/** One FTS column of a document: the analyzed words of each of its values. */
export type ColumnWords = readonly (readonly string[])[];

/** What one document contributes to the term lists. */
export interface TermListEntry {
  /** Its size as FTS5 counts it: every token of every column, the breaks between values and the filter keys. */
  readonly size: number;
  /** Every word is {@link PLAIN_WORD}. */
  readonly certain: boolean;
  /** Per word of its default columns: the sum of the column weights over its occurrences. */
  readonly weights: ReadonlyMap<string, number>;
}

/**
 * @param columns the FTS columns' words, in FTS column order (the filter keys column excluded);
 * @param weights the columns' weights (their fields' boosts);
 * @param ranked which columns a query word matches (the default fields);
 * @param filterKeys how many tokens the filter keys column holds.
 */
export function termListEntry(
  columns: readonly ColumnWords[],
  weights: readonly number[],
  ranked: ReadonlySet<number>,
  filterKeys: number,
): TermListEntry {
  let size = filterKeys;
  let certain = true;
  const frequencies = new Map<string, number>();
  columns.forEach((values, column) => {
    // Values are joined by one break token each.
    size += Math.max(values.length - 1, 0);
    for (const words of values) {
      size += words.length;
      for (const word of words) {
        if (!PLAIN_WORD.test(word)) certain = false;
        // FTS5 adds the column's weight once per occurrence, in column and position order; so does this.
        if (ranked.has(column)) frequencies.set(word, (frequencies.get(word) ?? 0) + (weights[column] ?? 1));
      }
    }
  });
  return { size, certain, weights: frequencies };
}

/** Whether a query word can be answered from the term lists: FTS5 holds it as the analyzer wrote it. */
export function isPlainWord(word: string): boolean {
  return PLAIN_WORD.test(word);
}

/** A (weight, size) group of the documents holding a word, with how many visible documents it holds. */
export interface TermGroup {
  readonly weight: number;
  readonly size: number;
  readonly visible: number;
}

/** Groups whose documents score the same, best first; their documents are listed by URN across the class. */
export interface ScoreClass {
  readonly groups: readonly TermGroup[];
  readonly visible: number;
}

/**
 * FTS5's `bm25` of one word, without its `idf` factor and sign: larger ranks first.
 * @param averageSize the table's total tokens over its rows, as FTS5 keeps them.
 */
function termScore(weight: number, size: number, averageSize: number): number {
  return (weight * (K1 + 1.0)) / (weight + K1 * (1 - B + (B * size) / averageSize));
}

/** The statistics FTS5's `bm25` ranks with. */
export interface FtsTotals {
  /** `N` of the inverse document frequencies. */
  readonly rows: number;
  /** Tokens per row, over all columns. */
  readonly averageSize: number;
}

/**
 * FTS5's totals, from its averages record (the `%_data` row of id 1: a varint count of rows, then a varint total of
 * tokens per column). They are read rather than kept alongside because FTS5 keeps them its own way: a
 * contentless-delete table does not take a deleted row back out of them, so they are of every row inserted since the
 * table was made. Undefined when the table holds no rows yet.
 */
export function ftsTotals(record: Uint8Array): FtsTotals | undefined {
  const values: number[] = [];
  for (let at = 0; at < record.length;) {
    const read = readVarint(record, at);
    if (read === undefined) return undefined;
    values.push(read.value);
    at = read.next;
  }
  const [rows, ...columnTotals] = values;
  if (rows === undefined || rows === 0) return undefined;
  return { rows, averageSize: columnTotals.reduce((sum, total) => sum + total, 0) / rows };
}

/** SQLite's variable-length integer (FTS5's too): 7 bits per byte, high bit set when more follow; a ninth byte whole. */
function readVarint(bytes: Uint8Array, start: number): { value: number; next: number } | undefined {
  let value = 0;
  for (let at = start; at < start + 8; at += 1) {
    const byte = bytes[at];
    if (byte === undefined) return undefined;
    value = value * 128 + (byte & 0x7f);
    if (byte < 0x80) return { value, next: at + 1 };
  }
  const last = bytes[start + 8];
  return last === undefined ? undefined : { value: value * 256 + last, next: start + 9 };
}

/** FTS5's inverse document frequency of a word that `hits` of the table's `rows` rows hold. */
export function inverseDocumentFrequency(rows: number, hits: number): number {
  const idf = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return idf <= 0.0 ? 1e-6 : idf;
}

/** The groups of one word in rank order, those scoring the same together. */
export function scoreClasses(groups: readonly TermGroup[], averageSize: number): ScoreClass[] {
  return rankClasses(groups, (group) => termScore(group.weight, group.size, averageSize)).map((members) => ({
    groups: members,
    visible: members.reduce((sum, group) => sum + group.visible, 0),
  }));
}

/** One group per distinct word of a query, all of one size: the documents holding every word with those weights. */
export type Combination = readonly TermGroup[];

/**
 * The combinations of the words' groups that documents may fall in (one group per word, of one size), in rank order,
 * those scoring the same together; undefined when there would be more than `limit`.
 * @param groups per distinct word, its groups;
 * @param phrases per word of the query, in query order, the index of its distinct word (FTS5 scores each phrase);
 * @param idfs per distinct word, {@link inverseDocumentFrequency}.
 */
export function combinationClasses(
  groups: readonly (readonly TermGroup[])[],
  phrases: readonly number[],
  idfs: readonly number[],
  averageSize: number,
  limit: number,
): Combination[][] | undefined {
  const bySize = groups.map((ofWord) => {
    const sizes = new Map<number, TermGroup[]>();
    for (const group of ofWord) sizes.set(group.size, [...(sizes.get(group.size) ?? []), group]);
    return sizes;
  });
  const [first, ...others] = bySize;
  if (first === undefined) return [];
  const combinations: Combination[] = [];
  for (const [size, firstGroups] of first) {
    let partial: TermGroup[][] = firstGroups.map((group) => [group]);
    for (const sizes of others) {
      const ofSize = sizes.get(size) ?? [];
      partial = partial.flatMap((combination) => ofSize.map((group) => [...combination, group]));
      if (partial.length > limit) return undefined;
    }
    combinations.push(...partial);
    if (combinations.length > limit) return undefined;
  }
  return rankClasses(combinations, (combination) => {
    // FTS5 adds the phrases' scores in query order.
    let score = 0;
    for (const word of phrases) {
      const group = combination[word];
      if (group === undefined) throw new Error(`No group for word ${word} of the query`);
      score += (idfs[word] ?? 0) * termScore(group.weight, group.size, averageSize);
    }
    return score;
  });
}

/** Items by descending score, those of equal scores in one class. */
function rankClasses<T>(items: readonly T[], score: (item: T) => number): T[][] {
  const scored = items.map((item) => ({ item, score: score(item) })).sort((a, b) => b.score - a.score);
  const classes: { score: number; items: T[] }[] = [];
  for (const { item, score: value } of scored) {
    const last = classes[classes.length - 1];
    if (last?.score === value) last.items.push(item);
    else classes.push({ score: value, items: [item] });
  }
  return classes.map(({ items: members }) => members);
}
