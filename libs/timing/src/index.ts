export { systemScheduler } from './scheduler';
export type { Scheduler } from './scheduler';
export { backoffDelay } from './backoff';
export type { Backoff } from './backoff';
export { retry, RetryAbortedError } from './retry';
export type { RetryOptions } from './retry';
export { DEFAULT_SLICE_MS, TimeSlice } from './time-slice';
