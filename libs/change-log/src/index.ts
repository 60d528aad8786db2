export { ChangeLogProcessor } from './change-log-processor';
export type { ChangeLogProcessorOptions, ProcessorLogger } from './change-log-processor';
export type { ChangeLogEvent, ChangeLogHook, ChangeLogKind, ReadModel } from './change-log-hook';
export { decodeChangeLog } from './change-log-decoder';
export type { DecodedChangeLog, UnapplicableChangeLog, UnapplicableReason } from './change-log-decoder';
export { RECENT_LAGS } from './processor-progress';
export type {
  HookProgressReport,
  PartitionBacklog,
  PartitionProgress,
  ProcessorBacklog,
  ProcessorProgressReport,
  RecentLag,
} from './processor-progress';
