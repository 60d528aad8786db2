export { createTimeseriesIndexerService, TIMESERIES_INDEXER } from './timeseries-indexer-service';
export type { TimeseriesIndexerServiceOptions } from './timeseries-indexer-service';
export { timeseriesIndexerConfig, timeseriesIndexerConfigSchema } from './config';
export { composeTimeseriesIndexer } from './app';
export type { TimeseriesIndexerSettings } from './app';
