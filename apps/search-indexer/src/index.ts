export { createSearchIndexerService, SEARCH_INDEXER } from './search-indexer-service';
export type { SearchIndexerServiceOptions } from './search-indexer-service';
export { searchIndexerConfig, searchIndexerConfigSchema } from './config';
export { composeSearchIndexer } from './app';
export type { SearchIndexerSettings } from './app';
