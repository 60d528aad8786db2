export { createTimeseriesIndexerService, TIMESERIES_INDEXER } from './timeseries-indexer-service';
export type { TimeseriesIndexerServiceOptions } from './timeseries-indexer-service';
export { timeseriesIndexerConfig, timeseriesIndexerConfigSchema, loadTimeseriesIndexerConfig } from './config';
export { composeTimeseriesIndexer, createTimeseriesIndexerApp } from './app';
export type { TimeseriesIndexerSettings } from './app';
