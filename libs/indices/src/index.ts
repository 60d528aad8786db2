export type {
  EdgeKey,
  EdgeScrollPage,
  EdgeScrollQuery,
  EdgeWindow,
  GraphChange,
  GraphEdge,
  GraphIndex,
  HeldEdge,
  Neighbour,
  NeighbourPage,
  NeighbourQuery,
  Relationship,
  RelationshipDirection,
  RelationshipPage,
  RelationshipQuery,
  ScrolledEdge,
} from './graph-index';
export { compareCodePoints, MAX_EDGE_SCROLL_COUNT, passesWindow } from './graph-index';
export { SqliteGraphIndex } from './sqlite-graph-index';
export type { SqliteGraphIndexOptions } from './sqlite-graph-index';
export { ElasticsearchGraphIndex } from './elasticsearch-graph-index';
export type { ElasticsearchGraphIndexOptions } from './elasticsearch-graph-index';
export { graphIndexName } from './elasticsearch-graph-mappings';
export type {
  AutocompletePage,
  AutocompleteRequest,
  BrowseEntity,
  BrowseGroup,
  BrowsePage,
  BrowseRequest,
  Condition,
  Criterion,
  DocumentWrite,
  FacetResult,
  FieldContribution,
  FieldValue,
  Filter,
  MatchedField,
  SearchDocument,
  SearchHit,
  SearchIndex,
  SearchPage,
  SearchRequest,
} from './search-index';
export { CONDITIONS, MAX_FACET_VALUES } from './search-index';
export {
  BROWSE_PATHS_FIELD,
  createSearchSchema,
  LAST_CHANGED_FIELD,
  REMOVED_FIELD,
  URN_FIELD,
  type EntitySearchSchema,
  type IndexField,
  type SearchSchema,
} from './search-schema';
export { analyze, parseSearchQuery, type QueryNode } from './search-query';
export { documentFields, MAX_PAGE_SIZE } from './search-documents';
export { SqliteSearchIndex } from './sqlite-search-index';
export type { SqliteSearchIndexOptions } from './sqlite-search-index';
export { ElasticsearchSearchIndex } from './elasticsearch-search-index';
export type { ElasticsearchSearchIndexOptions } from './elasticsearch-search-index';
export type { ElasticsearchConnection } from './elasticsearch-connection';
export { searchIndexName } from './elasticsearch-mappings';
export { AUDIT_MAX_PAGE_SIZE, AUDIT_TOTAL_LIMIT, compareAuditEvents, cursorOf } from './audit-index';
export type { AuditCursor, AuditEvent, AuditIndex, AuditPage, AuditQuery } from './audit-index';
export { SqliteAuditIndex } from './sqlite-audit-index';
export type { SqliteAuditIndexOptions } from './sqlite-audit-index';
export { auditIndexName, ElasticsearchAuditIndex } from './elasticsearch-audit-index';
export type { ElasticsearchAuditIndexOptions } from './elasticsearch-audit-index';
export { formatTaskId, TIMESERIES_MAX_BUCKETS, TIMESERIES_MAX_LIMIT, timeseriesIndexName } from './timeseries-index';
export type {
  TaskCounters,
  TaskId,
  TaskStatus,
  TimeseriesAggregation,
  TimeseriesAggregationRow,
  TimeseriesAspectRef,
  TimeseriesBucket,
  TimeseriesCollectionItem,
  TimeseriesMetric,
  TimeseriesChange,
  TimeseriesIndex,
  TimeseriesIndexSize,
  TimeseriesPoint,
  TimeseriesQuery,
  TruncationRequest,
} from './timeseries-index';
export type { CalendarUnit } from './timeseries-calendar';
export { SqliteTimeseriesIndex } from './sqlite-timeseries-index';
export type { SqliteTimeseriesIndexOptions } from './sqlite-timeseries-index';
export { ElasticsearchTimeseriesIndex } from './elasticsearch-timeseries-index';
export type { ElasticsearchTimeseriesIndexOptions } from './elasticsearch-timeseries-index';
export { criterionSchema, filterSchema } from './filter-schema';
