import { runService } from '@strata/http';
import { createSearchIndexerApp } from './app';
import { loadSearchIndexerConfig } from './config';

runService('search-indexer', () => createSearchIndexerApp(loadSearchIndexerConfig(process.env)));
