export type {
  AspectKey,
  AspectMutation,
  AspectStore,
  DeleteAspect,
  DeleteEntity,
  DeleteTimeseries,
  JsonObject,
  OutboxRecord,
  PendingOutboxRecord,
  PutAspect,
  PutTimeseries,
  RestatedRow,
  RestatePage,
  RestateRequest,
  RowCursor,
  ScannedEntity,
  StoreCommit,
  StoredAspect,
  StoredTimeseriesValue,
  TimeRange,
  TruncateTimeseries,
} from './aspect-store';
export { cursorOfRow, EntityGrouping } from './aspect-store';
export { SqliteAspectStore } from './sqlite-aspect-store';
export type { SqliteAspectStoreOptions } from './sqlite-aspect-store';
export { MongoAspectStore } from './mongo-aspect-store';
export type { MongoAspectStoreOptions } from './mongo-aspect-store';
