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
 * otherwise than the analyzer) is uncertain: while an entity type holds one, its searches take the FTS5 path.
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
export function termScore(weight: number, size: number, averageSize: number): number {
  return (weight * (K1 + 1.0)) / (weight + K1 * (1 - B + (B * size) / averageSize));
}

/** The groups in rank order, those scoring the same together. */
export function scoreClasses(groups: readonly TermGroup[], averageSize: number): ScoreClass[] {
  const scored = groups
    .map((group) => ({ group, score: termScore(group.weight, group.size, averageSize) }))
    .sort((a, b) => b.score - a.score);
  const classes: { score: number; groups: TermGroup[]; visible: number }[] = [];
  for (const { group, score } of scored) {
    const last = classes[classes.length - 1];
    if (last?.score === score) {
      last.groups.push(group);
      last.visible += group.visible;
    } else {
      classes.push({ score, groups: [group], visible: group.visible });
    }
  }
  return classes.map(({ groups: members, visible }) => ({ groups: members, visible }));
}
