export { createOperationsService, OPERATIONS } from './operations-service';
export type { OperationsServiceOptions } from './operations-service';
export { metadataTestsConfig, operationsConfigSchema, loadOperationsConfig } from './config';
export { composeOperations, createOperationsApp } from './app';
export type { OperationsSettings } from './app';
