import { runService } from '@strata/http';
import { createMetadataWriterApp } from './app';
import { loadMetadataWriterConfig } from './config';

runService('metadata-writer', () => createMetadataWriterApp(loadMetadataWriterConfig(process.env)));
