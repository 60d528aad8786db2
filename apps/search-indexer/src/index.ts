export { createSearchIndexerService, SEARCH_INDEXER } from './search-indexer-service';
export type { SearchIndexerService, SearchIndexerServiceOptions } from './search-indexer-service';
export { searchIndexerConfig, searchIndexerConfigSchema } from './config';
export { openSearchIndexer } from './app';
export type { SearchIndexerSettings } from './app';
