export { createMetadataWriterService } from './metadata-writer-service';
export type { MetadataWriterServiceOptions } from './metadata-writer-service';
export { metadataWriterConfigSchema, writerConfig, loadMetadataWriterConfig } from './config';
export { composeMetadataWriter, createMetadataWriterApp, METADATA_WRITER } from './app';
export type { MetadataWriterSettings } from './app';
