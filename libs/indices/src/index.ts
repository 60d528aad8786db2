export type {
  GraphEdge,
  GraphIndex,
  Relationship,
  RelationshipDirection,
  RelationshipPage,
  RelationshipQuery,
} from './graph-index';
export { SqliteGraphIndex } from './sqlite-graph-index';
export type { SqliteGraphIndexOptions } from './sqlite-graph-index';
