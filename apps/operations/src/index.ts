export { createOperationsService, OPERATIONS } from './operations-service';
export type { OperationsServiceOptions } from './operations-service';
export { operationsConfigSchema } from './config';
export { composeOperations } from './app';
