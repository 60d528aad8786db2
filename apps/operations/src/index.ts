export { createOperationsService, OPERATIONS } from './operations-service';
export type { OperationsServiceOptions } from './operations-service';
export { metadataTestsConfig, operationsConfigSchema } from './config';
export { composeOperations } from './app';
export type { OperationsSettings } from './app';
