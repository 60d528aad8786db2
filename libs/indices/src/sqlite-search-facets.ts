import type Database from 'better-sqlite3';

import { MAX_FACET_VALUES, type FacetResult, type Filter } from './search-index';
import type { EntitySearchSchema } from './search-schema';
import type { EntityCounts, PrepareStatement } from './sqlite-search-layout';
import type { HitSet } from './sqlite-search-sql';

/**
 * The facets of {@link SqliteSearchIndex}'s searches, counted from the facet values each document holds by number
 * (`document_facets`) and, for searches matching most documents, from the totals kept on write (`facets`).
 */
export class SqliteSearchFacets {
  private readonly entityCounts;

  constructor(
    db: Database.Database,
    private readonly prepared: PrepareStatement,
  ) {
    this.entityCounts = db.prepare<[string], EntityCounts>(
      'SELECT visible, uncertain FROM entity_counts WHERE entity = ?',
    );
  }

  /**
   * The facets of the hits. Without a filter, when the hits are most of the entity's visible documents, the counts
   * are the entity's totals (kept in `facet_counts`) less those of the few visible documents that are not hits; else
   * they are counted over the hits. Both are exact.
   */
  count(entity: EntitySearchSchema, hits: HitSet, total: number, filter: Filter): FacetResult[] {
    if (entity.facets.length === 0) return [];
    const names = JSON.stringify(entity.facets.map((facet) => facet.name));
    const counts = new Map<string, Map<string, number>>();
    const add = (field: string, value: string, count: number) => {
      const values = counts.get(field) ?? new Map<string, number>();
      values.set(value, (values.get(value) ?? 0) + count);
      counts.set(field, values);
    };
    if (total > 0) {
      const visible = filter.length === 0 ? (this.entityCounts.get(entity.entityType)?.visible ?? 0) : 0;
      if (filter.length === 0 && total * 2 > visible && total <= visible) {
        const totals = this.prepared(
          `SELECT field, value, visible AS count FROM facets
           WHERE entity = ? AND field IN (SELECT value FROM json_each(?)) AND visible > 0`,
        ).all(entity.entityType, names) as { field: string; value: string; count: number }[];
        for (const row of totals) add(row.field, row.value, row.count);
        const missed =
          total === visible
            ? []
            : (this.prepared(
                `SELECT k.field AS field, k.value AS value, c.count AS count
                 FROM (SELECT f.facet AS facet, COUNT(*) AS count
                       FROM documents d CROSS JOIN document_facets f ON f.doc = d.id
                       WHERE d.entity = ? AND d.removed = 0 AND d.id NOT IN (${hits.unranked})
                       GROUP BY f.facet) c
                 CROSS JOIN facets k ON k.id = c.facet`,
              ).all(entity.entityType, ...hits.params) as { field: string; value: string; count: number }[]);
        for (const row of missed) add(row.field, row.value, -row.count);
      } else {
        // Grouped by facet id first: integers group far faster than (field, value) texts.
        const rows = this.prepared(
          `SELECT k.field AS field, k.value AS value, c.count AS count
           FROM (SELECT f.facet AS facet, COUNT(*) AS count
                 FROM (${hits.unranked}) h CROSS JOIN document_facets f ON f.doc = h.id
                 GROUP BY f.facet) c
           CROSS JOIN facets k ON k.id = c.facet`,
        ).all(...hits.params) as { field: string; value: string; count: number }[];
        for (const row of rows) add(row.field, row.value, row.count);
      }
    }
    return entity.facets.map((facet) => {
      const values = [...(counts.get(facet.name) ?? new Map<string, number>())]
        .filter(([, count]) => count > 0)
        .sort(([a, countA], [b, countB]) => countB - countA || (a < b ? -1 : a > b ? 1 : 0))
        .slice(0, MAX_FACET_VALUES);
      return { field: facet.name, displayName: facet.displayName, counts: Object.fromEntries(values) };
    });
  }
}
