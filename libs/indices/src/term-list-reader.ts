import type Database from 'better-sqlite3';

import { filterKeysExpression, valueKey } from './filter-keys';
import type { Filter, SearchRequest } from './search-index';
import type { QueryNode } from './search-query';
import { REMOVED_FIELD, type EntitySearchSchema } from './search-schema';
import type { EntityCounts, FtsTable, PrepareStatement } from './sqlite-search-layout';
import { ftsExpression, hitsQuery, type FoundHits, type PageRow } from './sqlite-search-sql';
import {
  combinationClasses,
  ftsTotals,
  inverseDocumentFrequency,
  isPlainWord,
  scoreClasses,
  type Combination,
  type FtsTotals,
  type TermGroup,
} from './term-lists';

/** Up to this many matches, FTS5 ranks a search of several words faster than the term lists' combinations. */
const FTS_RANKED_HITS = 1_000;

/** Beyond this many combinations of groups, the term lists give a search of several words to FTS5. */
const MAX_COMBINATIONS = 1_000;

/**
 * How many documents the combinations' walks of one search may read before giving it to FTS5 (combinations whose
 * words seldom meet cost a walk and find little).
 */
const WALK_BUDGET = 20_000;

/**
 * Reads a search's page from the ranked term lists (`term-lists.ts`, kept on write by `sqlite-search-rows.ts`) instead
 * of having FTS5 score every match, when the search is one the lists answer exactly.
 */
export class TermListReader {
  private readonly statements;

  constructor(
    db: Database.Database,
    private readonly prepared: PrepareStatement,
  ) {
    this.statements = {
      entityCounts: db.prepare<[string], EntityCounts>('SELECT visible, uncertain FROM entity_counts WHERE entity = ?'),
      termGroups: db.prepare<[string, string], TermGroup>(
        'SELECT weight, size, visible FROM term_groups WHERE entity = ? AND term = ?',
      ),
      groupPage: db.prepare<[string, string, number, number, number, number], PageRow>(
        `SELECT doc AS id, urn FROM term_postings WHERE entity = ? AND term = ? AND weight = ? AND size = ?
           ORDER BY urn LIMIT ? OFFSET ?`,
      ),
      classPage: db.prepare<[string, string, string, number, number], PageRow>(
        `SELECT doc AS id, urn FROM term_postings
           WHERE entity = ? AND term = ? AND (weight, size) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))
           ORDER BY urn LIMIT ? OFFSET ?`,
      ),
    };
  }

  /**
   * A search of plain words (one, or several ANDed) without a filter, answered from the ranked term lists. Undefined
   * when the search is of another kind; when a visible document of the entity type has words FTS5 may count
   * otherwise than the lists (not {@link TermListEntry.certain}); or, for several words, when FTS5 ranks the matches as fast (few of them) or the
   * lists' combinations would cost more.
   */
  hits(
    entity: EntitySearchSchema,
    fts: FtsTable,
    query: QueryNode,
    filter: Filter,
    request: SearchRequest,
  ): FoundHits | undefined {
    const words = plainWords(query);
    if (filter.length > 0 || words === undefined || entity.defaultFields.length === 0) {
      return undefined;
    }
    if ((this.statements.entityCounts.get(entity.entityType)?.uncertain ?? 0) > 0) return undefined;
    const record = fts.totals?.get() as { block: Uint8Array } | undefined;
    const totals = record === undefined ? undefined : ftsTotals(record.block);
    if (totals === undefined) return undefined;
    const distinct = [...new Set(words)];
    const [word] = distinct;
    if (distinct.length === 1 && word !== undefined) return this.wordHits(entity, word, totals, request);
    return this.wordsHits(entity, fts, query, words, distinct, totals, request);
  }

  /** One word: its groups of visible documents in rank order, the page read from the groups it spans. */
  private wordHits(entity: EntitySearchSchema, word: string, totals: FtsTotals, request: SearchRequest): FoundHits {
    const hits = {
      unranked: 'SELECT doc AS id FROM term_postings WHERE entity = ? AND term = ?',
      params: [entity.entityType, word],
    };
    const classes = scoreClasses(this.statements.termGroups.all(entity.entityType, word), totals.averageSize);
    const total = classes.reduce((sum, { visible }) => sum + visible, 0);
    const page: PageRow[] = [];
    let skip = request.start;
    for (const { groups, visible } of classes) {
      const wanted = request.count - page.length;
      if (wanted <= 0) break;
      if (skip >= visible) {
        skip -= visible;
        continue;
      }
      const [only] = groups;
      const rows =
        groups.length === 1 && only !== undefined
          ? this.statements.groupPage.all(entity.entityType, word, only.weight, only.size, wanted, skip)
          : this.statements.classPage.all(
              entity.entityType,
              word,
              JSON.stringify(groups.map((group) => [group.weight, group.size])),
              wanted,
              skip,
            );
      page.push(...rows);
      skip = 0;
    }
    return { total, page, hits };
  }

  /**
   * Several words, ANDed: FTS5 counts the matches (and lists them for facets); the page is read from the
   * combinations of the words' groups in rank order, each walked along its smallest group in URN order and checked
   * against the others' lists, until the page is full. Undefined (FTS5 ranks) when the matches are few, or when the
   * walk passes {@link WALK_BUDGET} documents without filling the page.
   */
  private wordsHits(
    entity: EntitySearchSchema,
    fts: FtsTable,
    query: QueryNode,
    words: readonly string[],
    distinct: readonly string[],
    totals: FtsTotals,
    request: SearchRequest,
  ): FoundHits | undefined {
    const hits = hitsQuery(entity, fts, query, []);
    const { total } = this.prepared(`SELECT COUNT(*) AS total FROM (${hits.unranked})`).get(...hits.params) as {
      total: number;
    };
    if (total <= FTS_RANKED_HITS) return undefined;
    const groups = distinct.map((word) => this.statements.termGroups.all(entity.entityType, word));
    // FTS5 counts the documents holding a word, for its idf, over every row: the lists' visible ones, and the removed
    // (few; FTS5 intersects their key's short list with the word's).
    const removedKey = filterKeysExpression(valueKey(REMOVED_FIELD, 'true'));
    const idfs = distinct.map((word, at) => {
      const phrase = ftsExpression({ kind: 'words', words: [word], prefix: false }, entity);
      const { removed } = this.prepared(
        `SELECT COUNT(*) AS removed FROM "${fts.name}" WHERE "${fts.name}" MATCH ?`,
      ).get(`(${phrase}) AND (${removedKey})`) as { removed: number };
      const visible = (groups[at] ?? []).reduce((sum, group) => sum + group.visible, 0);
      return inverseDocumentFrequency(totals.rows, visible + removed);
    });
    const classes = combinationClasses(
      groups,
      words.map((word) => distinct.indexOf(word)),
      idfs,
      totals.averageSize,
      MAX_COMBINATIONS,
    );
    if (classes === undefined) return undefined;
    const wanted = request.count === 0 ? 0 : Math.min(request.start + request.count, total);
    const found: PageRow[] = [];
    const budget = { left: WALK_BUDGET };
    for (const combinations of classes) {
      if (found.length >= wanted) break;
      const members: PageRow[] = [];
      for (const combination of combinations) {
        const rows = this.combinationRows(entity.entityType, distinct, combination, wanted - found.length, budget);
        if (rows === undefined) return undefined;
        members.push(...rows);
      }
      // Documents scoring the same are listed by URN, in SQLite's order (UTF-8 bytes).
      if (combinations.length > 1) members.sort((a, b) => Buffer.compare(Buffer.from(a.urn), Buffer.from(b.urn)));
      found.push(...members.slice(0, wanted - found.length));
    }
    return { total, page: found.slice(request.start), hits };
  }

  /**
   * Up to `wanted` documents of one combination, in URN order: its smallest group walked in chunks, each document
   * checked against the other words' groups. Undefined when the walk would pass the budget.
   */
  private combinationRows(
    entityType: string,
    words: readonly string[],
    combination: Combination,
    wanted: number,
    budget: { left: number },
  ): PageRow[] | undefined {
    const driver = combination.reduce((smallest, group) => (group.visible < smallest.visible ? group : smallest));
    const driverWord = words[combination.indexOf(driver)];
    const checked = combination.flatMap((group, at) => (group === driver ? [] : [{ group, word: words[at] }]));
    const statement = this.prepared(
      `SELECT p.doc AS id, p.urn AS urn,
              ${checked
                .map(
                  () => `EXISTS (SELECT 1 FROM term_postings WHERE entity = p.entity AND term = ? AND weight = ?
                           AND size = p.size AND urn = p.urn)`,
                )
                .join(' AND ')} AS held
       FROM term_postings p
       WHERE p.entity = ? AND p.term = ? AND p.weight = ? AND p.size = ? AND p.urn > ?
       ORDER BY p.urn LIMIT ?`,
    );
    const rows: PageRow[] = [];
    let after = '';
    let chunk = Math.max(wanted, 16);
    for (;;) {
      if (budget.left <= 0) return undefined;
      const size = Math.min(chunk, budget.left);
      const walked = statement.all(
        ...checked.flatMap(({ group, word }) => [word, group.weight]),
        entityType,
        driverWord,
        driver.weight,
        driver.size,
        after,
        size,
      ) as (PageRow & { held: number })[];
      budget.left -= walked.length;
      for (const { id, urn, held } of walked) {
        if (held === 1) rows.push({ id, urn });
        if (rows.length >= wanted) return rows;
      }
      const last = walked[walked.length - 1];
      if (walked.length < size || last === undefined) return rows;
      after = last.urn;
      chunk = Math.min(chunk * 4, 4096);
    }
  }
}

/**
 * The words of a query the term lists answer: one plain word of the default fields, or several ANDed (in query
 * order, repeats kept: FTS5 scores each). Undefined for any other query.
 */
function plainWords(query: QueryNode): string[] | undefined {
  const wordOf = (node: QueryNode): string | undefined =>
    node.kind === 'words' && node.field === undefined && !node.prefix && node.words.length === 1
      ? node.words.find(isPlainWord)
      : undefined;
  const nodes = query.kind === 'and' ? query.nodes : [query];
  const words = nodes.map(wordOf);
  return words.every((word): word is string => word !== undefined) ? words : undefined;
}
