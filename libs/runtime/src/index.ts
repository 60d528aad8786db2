export { Lifecycle } from './lifecycle';
export type { LifecycleLogger, LifecycleScope, Stoppable } from './lifecycle';
export { Engines } from './engines';
export type { EngineChoice, EngineLogger, EngineSettings } from './engines';
export { DataDirectoryLockedError, lockDataDirectory } from './data-directory-lock';
export type { DataDirectoryLock } from './data-directory-lock';
export { hostServices } from './service-host';
export type { HostContext, HostedServices, HostSettings, SharedModel } from './service-host';
export type { StrataService } from './strata-service';
