import { runService } from '@strata/http';
import { createTimeseriesIndexerApp } from './app';
import { loadTimeseriesIndexerConfig } from './config';

runService('timeseries-indexer', () => createTimeseriesIndexerApp(loadTimeseriesIndexerConfig(process.env)));
