/**
 * DataHub's `EntityType` enum of its GraphQL API beside the entity names of the metadata model, and the GraphQL object
 * type each entity is served as. The enum's value for an entity name is DataHub's own rule — camelCase to
 * UPPER_SNAKE, a `dataHub` prefix dropped — with the exceptions DataHub makes by hand.
 */

/** Enum values that the general rule does not give. */
const ENUM_OF_ENTITY: Readonly<Record<string, string>> = {
  corpuser: 'CORP_USER',
  mlModel: 'MLMODEL',
  mlModelGroup: 'MLMODEL_GROUP',
  mlFeatureTable: 'MLFEATURE_TABLE',
  mlFeature: 'MLFEATURE',
  mlPrimaryKey: 'MLPRIMARY_KEY',
  dataHubIngestionSource: 'INGESTION_SOURCE',
  dataHubExecutionRequest: 'EXECUTION_REQUEST',
  dataHubAccessToken: 'ACCESS_TOKEN',
  dataHubPolicy: 'DATAHUB_POLICY',
  dataHubRole: 'DATAHUB_ROLE',
  dataHubView: 'DATAHUB_VIEW',
  dataHubConnection: 'DATAHUB_CONNECTION',
  dataHubPersona: 'DATAHUB_PERSONA',
  dataHubFile: 'DATAHUB_FILE',
  dataHubPageModule: 'DATAHUB_PAGE_MODULE',
  dataHubPageTemplate: 'DATAHUB_PAGE_TEMPLATE',
  ownershipType: 'CUSTOM_OWNERSHIP_TYPE',
  schemaField: 'SCHEMA_FIELD',
  erModelRelationship: 'ER_MODEL_RELATIONSHIP',
};

/** The GraphQL object type of each entity Strata serves as one; an entity of any other type cannot be answered. */
const OBJECT_TYPE_OF_ENTITY: Readonly<Record<string, string>> = {
  dataset: 'Dataset',
  chart: 'Chart',
  dashboard: 'Dashboard',
  dataJob: 'DataJob',
  dataFlow: 'DataFlow',
  container: 'Container',
  corpuser: 'CorpUser',
  corpGroup: 'CorpGroup',
  tag: 'Tag',
  glossaryTerm: 'GlossaryTerm',
  glossaryNode: 'GlossaryNode',
  domain: 'Domain',
  dataProduct: 'DataProduct',
  mlModel: 'MLModel',
  mlModelGroup: 'MLModelGroup',
  mlFeatureTable: 'MLFeatureTable',
  mlFeature: 'MLFeature',
  mlPrimaryKey: 'MLPrimaryKey',
  dataPlatform: 'DataPlatform',
  dataPlatformInstance: 'DataPlatformInstance',
  schemaField: 'SchemaFieldEntity',
  document: 'Document',
  dataHubAccessToken: 'AccessTokenMetadata',
  ownershipType: 'OwnershipTypeEntity',
  application: 'Application',
  assertion: 'Assertion',
  businessAttribute: 'BusinessAttribute',
  dataContract: 'DataContract',
  dataHubConnection: 'DataHubConnection',
  dataHubFile: 'DataHubFile',
  dataHubPageModule: 'DataHubPageModule',
  dataHubPageTemplate: 'DataHubPageTemplate',
  dataHubPolicy: 'DataHubPolicy',
  dataHubRole: 'DataHubRole',
  dataHubView: 'DataHubView',
  dataProcessInstance: 'DataProcessInstance',
  dataType: 'DataTypeEntity',
  erModelRelationship: 'ERModelRelationship',
  entityType: 'EntityTypeEntity',
  dataHubExecutionRequest: 'ExecutionRequest',
  form: 'Form',
  incident: 'Incident',
  notebook: 'Notebook',
  post: 'Post',
  query: 'QueryEntity',
  role: 'Role',
  dataHubServiceAccount: 'ServiceAccount',
  structuredProperty: 'StructuredPropertyEntity',
  test: 'Test',
  versionSet: 'VersionSet',
};

/** DataHub's `EntityType` value of an entity name (`dataJob` → `DATA_JOB`, `corpuser` → `CORP_USER`). */
export function entityTypeOf(entityName: string): string {
  const named = ENUM_OF_ENTITY[entityName];
  if (named !== undefined) return named;
  const bare = /^dataHub[A-Z]/.test(entityName) ? entityName.slice('dataHub'.length) : entityName;
  return bare.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

/**
 * The entity name of an `EntityType` value, among `entityNames` (those of the deployment's registry); undefined for a
 * value that names none of them (`OTHER`, `RESTRICTED`).
 */
export function entityNameOf(entityType: string, entityNames: Iterable<string>): string | undefined {
  for (const name of entityNames) if (entityTypeOf(name) === entityType) return name;
  return undefined;
}

/** The GraphQL object type an entity is served as; undefined for an entity type the API does not serve. */
export function objectTypeOf(entityName: string): string | undefined {
  return OBJECT_TYPE_OF_ENTITY[entityName];
}

/** The entity names served as GraphQL object types. */
export const SERVED_ENTITY_NAMES: readonly string[] = Object.keys(OBJECT_TYPE_OF_ENTITY);
