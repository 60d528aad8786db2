import { LRUCache } from 'lru-cache';

import type { DocumentWrite, SearchPage } from './search-index';

/** A search page kept by {@link SqliteSearchIndex}, with the generation of its entity type's documents it holds. */
interface CachedPage {
  readonly generation: number;
  readonly page: SearchPage;
}

/** Larger pages are not kept (a user pages by tens), so that a cache of a few hundred entries stays a few megabytes. */
const MAX_CACHED_HITS = 100;

/**
 * Search pages answered, by request (Solr's query result cache, in effect), each served only while no document of its
 * entity type has changed since it was kept: by this instance (counted in generations, per entity type) or, through
 * the same file, by another connection (seen in SQLite's `data_version`, which forgets every kept page).
 */
export class SearchPageCache {
  /** The pages kept; none when the cache holds no entries. */
  private readonly results: LRUCache<string, CachedPage> | undefined;
  /** Per entity type, how many of this instance's writes have changed its documents: a kept page's validity. */
  private readonly generations = new Map<string, number>();
  /** SQLite's count of other connections' commits, when the kept pages were last known valid. */
  private dataVersion: number | undefined;

  /**
   * @param entries how many pages to keep (0: none);
   * @param readDataVersion reads SQLite's `PRAGMA data_version` on the index's connection.
   */
  constructor(
    entries: number,
    private readonly readDataVersion: () => number | undefined,
  ) {
    if (!Number.isSafeInteger(entries) || entries < 0) {
      throw new Error(`resultCacheEntries must be a non-negative integer, not ${entries}`);
    }
    this.results = entries === 0 ? undefined : new LRUCache({ max: entries });
  }

  /**
   * The generation of the entity type's documents a kept page must hold to be served. Forgets every kept page when
   * another connection has committed since they were kept: its writes are not counted in {@link generations}. Read
   * before the search's snapshot is taken, so that a page's content is never older than the generation it is kept
   * under.
   */
  generation(entityType: string): number {
    if (this.results !== undefined) {
      const version = this.readDataVersion();
      if (version !== this.dataVersion) {
        this.results.clear();
        this.dataVersion = version;
      }
    }
    return this.generations.get(entityType) ?? 0;
  }

  /** The page kept under the key, when it holds the given generation. */
  get(key: string, generation: number): SearchPage | undefined {
    const kept = this.results?.get(key);
    return kept?.generation === generation ? kept.page : undefined;
  }

  /** Keeps a page answered at the given generation, unless it is too large to keep. */
  keep(key: string, generation: number, page: SearchPage): void {
    if (page.hits.length <= MAX_CACHED_HITS) this.results?.set(key, { generation, page });
  }

  /**
   * Counts a committed write of this instance against the entity types it changed; a removal whose URN names no
   * entity type forgets every kept page.
   */
  written(changes: readonly DocumentWrite[]): void {
    for (const change of changes) {
      const entityType = 'put' in change ? change.put.entityType : /^urn:li:([^:]+):/.exec(change.remove)?.[1];
      if (entityType === undefined) this.results?.clear();
      else this.generations.set(entityType, (this.generations.get(entityType) ?? 0) + 1);
    }
  }

  /**
   * Counts a committed clear of this instance (every document gone): forgets every kept page, and moves every entity
   * type's generation on, so that no page answered before the clear is ever served after it.
   */
  cleared(): void {
    for (const [entityType, generation] of this.generations) this.generations.set(entityType, generation + 1);
    this.results?.clear();
  }

  /** Forgets every kept page. */
  clear(): void {
    this.results?.clear();
  }
}
