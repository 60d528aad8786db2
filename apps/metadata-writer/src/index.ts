export { createMetadataWriterService } from './metadata-writer-service';
export type { MetadataWriterService, MetadataWriterServiceOptions } from './metadata-writer-service';
export { metadataWriterConfigSchema, writerConfig } from './config';
export { openMetadataWriter } from './app';
export type { MetadataWriterSettings } from './app';
