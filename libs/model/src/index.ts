export {
  BadGatewayError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  PreconditionFailedError,
  StrataError,
  TimeoutError,
  UnauthorizedError,
  UnavailableError,
  ValidationError,
  errorFromCode,
  type ErrorCode,
} from './errors';
export {
  InvalidUrnError,
  MAX_URL_ENCODED_URN_LENGTH,
  Urn,
  decodeUrnPathSegment,
  encodeUrnPathSegment,
  formatUrn,
  parseUrn,
  urlEncodedLength,
  urnLengthProblem,
} from './urn';
export { SchemaError } from './schema-error';
export {
  AspectValidationError,
  validateAspectValue,
  type AspectProblem,
  type AspectValidationContext,
  type JsonObject,
} from './aspect-validator';
export {
  KEY_PATH_SEPARATOR,
  PATCH_TEMPLATES,
  applyAspectPatch,
  parseAspectPatch,
  type AspectPatch,
  type PatchContext,
  type PatchOperation,
} from './aspect-patch';
export { withCustomModels } from './custom-models';
export { createEntityRegistry, type AspectSpec, type EntityRegistry, type EntitySpec } from './entity-registry';
export {
  partitionSpecOf,
  timeseriesAspectNamed,
  timeseriesAspectsOf,
  timeseriesFieldNames,
  timeseriesFieldsOf,
  timeseriesPointId,
} from './timeseries-points';
export {
  DEFAULT_MAX_ASPECT_BYTES,
  MAX_JSON_NESTING_DEPTH,
  CREATION_REQUIRES_HEADER,
  TIME_RANGE_HEADERS,
  TIMESERIES_RUN_HEADER,
  checkNestingDepth,
  timeRangeOf,
  timeseriesRunOf,
  validateProposal,
  type ProposalChangeType,
  type ProposalValidationOptions,
  type ValidatedProposal,
} from './proposal-validation';
export {
  ANY_ENTITY_TYPE,
  javaClassOf,
  unionMemberKey,
  urnEntityTypeOfClass,
  type Annotations,
  type ArraySchema,
  type AvroSchema,
  type EnumSchema,
  type FieldSchema,
  type FixedSchema,
  type MapSchema,
  type PrimitiveSchema,
  type PrimitiveTypeName,
  type RecordSchema,
  type UnionSchema,
} from './record-schema';
export { removeReferences, type ReferenceRemoval } from './reference-removal';
export {
  EVERY,
  KEYS,
  SEARCHABLE_FIELD_TYPES,
  relationshipFields,
  searchableFields,
  valuesAt,
  type RelationshipFieldSpec,
  type RelationshipStampPaths,
  type SearchableFieldSpec,
  type SearchableFieldType,
} from './search-annotations';
// Aspect value types in Pegasus JSON form, generated from schemas/aspects by tools/codegen (npm run generate).
export type * from './generated/aspects';
export { SYSTEM_ACTOR_URN, UNKNOWN_ACTOR_URN } from './actors';
export { GATEWAY_WRITE_SWITCH_MARK, SWITCH_MARKS } from './switches';
export {
  evaluateTest,
  MAX_TEST_NESTING,
  METADATA_TEST_ASPECT,
  parseTestDefinition,
  TEST_OPERATORS,
  TEST_RESULTS_ASPECT,
  valuesReached,
  type TestDefinition,
  type TestedEntity,
  type TestOperator,
  type TestOutcome,
  type TestPredicate,
} from './metadata-tests';
export { WildcardPattern, globTokens, likeTokens, type MatchCounter, type WildcardToken } from './wildcard-pattern';
export { parseVersionedUrnKey, parseVersionStamp, type VersionedUrnKey } from './versioned-urn';
