export type {
  AspectKey,
  AspectMutation,
  AspectStore,
  CountLatestRequest,
  DeleteAspect,
  DeleteEntity,
  DeleteTimeseries,
  JsonObject,
  ListRunsRequest,
  ListUrnsRequest,
  OutboxRecord,
  PendingOutboxRecord,
  PutAspect,
  PutTimeseries,
  RestatedRow,
  RestatePage,
  RestateRequest,
  RowCursor,
  RunSummary,
  ScannedEntity,
  StoreCommit,
  StoredAspect,
  StoredTimeseriesValue,
  TimeRange,
  TimeseriesOfRun,
  TruncateTimeseries,
} from './aspect-store';
export { cursorOfRow, EntityGrouping, UNNAMED_RUN_ID } from './aspect-store';
export { SqliteAspectStore } from './sqlite-aspect-store';
export type { SqliteAspectStoreOptions } from './sqlite-aspect-store';
export { MongoAspectStore } from './mongo-aspect-store';
export type { MongoAspectStoreOptions } from './mongo-aspect-store';
export type { LogEnd, NewWriteTrace, WriteTrace } from './write-traces';
