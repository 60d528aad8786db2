export { TestHttpClient } from './http-client';
export type { TestResponse } from './http-client';
export { repositoryRoot, startStandalone } from './standalone-process';
export type { StandaloneProcess, StandaloneProcessOptions } from './standalone-process';
export { eventually } from './eventually';
