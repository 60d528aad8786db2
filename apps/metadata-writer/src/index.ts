export { createMetadataWriterService } from './metadata-writer-service';
export type { MetadataWriterServiceOptions } from './metadata-writer-service';
export { metadataWriterConfigSchema, writerConfig } from './config';
export { composeMetadataWriter, METADATA_WRITER } from './app';
export type { MetadataWriterSettings } from './app';
