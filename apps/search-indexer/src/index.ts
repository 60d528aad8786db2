export { createSearchIndexerService, SEARCH_INDEXER } from './search-indexer-service';
export type { SearchIndexerServiceOptions } from './search-indexer-service';
export { searchIndexerConfig, searchIndexerConfigSchema, loadSearchIndexerConfig } from './config';
export { composeSearchIndexer, createSearchIndexerApp } from './app';
export type { SearchIndexerSettings } from './app';
