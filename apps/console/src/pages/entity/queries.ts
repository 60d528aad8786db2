/**
 * The entity page's GraphQL reads. The page's own read is built for the entity's GraphQL type, so that it asks only
 * the fields that type has (and the header and overview show); the related-entity lists, the schema and the stats are
 * reads of their own, made by the tab that shows them.
 */
import { PRIVILEGE_NAMES } from '../../logic/entity-summary';

/** What the page shows of a related entity: its URN, type and name, whatever its type. */
export const ENTITY_REF_FRAGMENT = `fragment consoleEntityRef on Entity {
  urn
  type
  ... on Dataset { name properties { name } editableProperties { name } }
  ... on Chart { properties { name } }
  ... on Dashboard { properties { name } }
  ... on DataFlow { properties { name } }
  ... on DataJob { properties { name } }
  ... on Container { properties { name } }
  ... on CorpUser { username properties { displayName } editableProperties { displayName } }
  ... on CorpGroup { name properties { displayName } }
  ... on Tag { name properties { name } }
  ... on GlossaryTerm { name properties { name } }
  ... on GlossaryNode { properties { name } }
  ... on Domain { properties { name } }
  ... on DataProduct { properties { name } }
  ... on DataPlatform { name properties { displayName } }
  ... on MLModel { name }
  ... on MLModelGroup { name }
  ... on MLFeatureTable { name }
  ... on MLFeature { name }
  ... on MLPrimaryKey { name }
  ... on SchemaFieldEntity { fieldPath }
}`;

const OWNERSHIP = `ownership { owners {
  owner { ... on CorpUser { urn type username properties { displayName } editableProperties { displayName } }
          ... on CorpGroup { urn type name properties { displayName } } }
  type
  ownershipType { urn info { name } }
} }`;
const TAG_LIST = `{ tags { tag { urn name properties { name colorHex } } } }`;
const GLOBAL_TAGS = `globalTags ${TAG_LIST}`;
/** Types whose tags are the `tags` field only: read under the same name as the others'. */
const TAGS_AS_GLOBAL = `globalTags: tags ${TAG_LIST}`;
const TERMS = `glossaryTerms { terms { term { urn name properties { name } } } }`;
const DOMAIN = `domain { domain { urn properties { name } } }`;
const DEPRECATION = `deprecation { deprecated note decommissionTime actor }`;
const STATUS = `status { removed }`;
const LINKS = `institutionalMemory { elements { url label description created { time actor } } }`;
const SUB_TYPES = `subTypes { typeNames }`;
const PLATFORM = `platform { urn name properties { displayName } }`;
const PARENTS = `parentContainers { containers { urn properties { name } } }`;
const BROWSE = `browsePathV2 { path { name entity { ...consoleEntityRef } } }`;
const PRIVILEGES = `privileges { ${PRIVILEGE_NAMES.join(' ')} }`;
const NODES = `parentNodes { nodes { urn properties { name } } }`;

/** What the header shows of a data asset (datasets, charts, dashboards, pipelines, jobs, containers). */
const ASSET = [OWNERSHIP, TERMS, DOMAIN, DEPRECATION, STATUS, LINKS, SUB_TYPES, PARENTS, BROWSE, PRIVILEGES];
const ML = [OWNERSHIP, TERMS, DOMAIN, DEPRECATION, STATUS, LINKS, PRIVILEGES];

/** Each GraphQL type's fields for the header and the overview. */
const FIELDS: Readonly<Record<string, readonly string[]>> = {
  Dataset: [
    'exists',
    'name origin lastIngested',
    'properties { name description externalUrl qualifiedName customProperties { key value } lastModified { time actor } }',
    'editableProperties { name description }',
    PLATFORM,
    GLOBAL_TAGS,
    ...ASSET,
  ],
  Chart: [
    'exists',
    'lastIngested',
    'properties { name description externalUrl type access customProperties { key value } lastModified { time actor } }',
    'editableProperties { description }',
    PLATFORM,
    GLOBAL_TAGS,
    ...ASSET,
  ],
  Dashboard: [
    'exists',
    'lastIngested',
    'properties { name description externalUrl access customProperties { key value } lastModified { time actor } }',
    'editableProperties { description }',
    PLATFORM,
    GLOBAL_TAGS,
    ...ASSET,
  ],
  DataFlow: [
    'exists',
    'lastIngested cluster',
    'properties { name description externalUrl project customProperties { key value } }',
    'editableProperties { description }',
    PLATFORM,
    GLOBAL_TAGS,
    ...ASSET,
  ],
  DataJob: [
    'exists',
    'lastIngested',
    'properties { name description externalUrl customProperties { key value } }',
    'editableProperties { description }',
    // `platform` is nullable here and not elsewhere: read under another name.
    'jobPlatform: platform { urn name properties { displayName } }',
    'dataFlow { urn properties { name } }',
    GLOBAL_TAGS,
    ...ASSET,
  ],
  Container: [
    'exists',
    'lastIngested',
    'properties { name description externalUrl qualifiedName customProperties { key value } }',
    'editableProperties { description }',
    PLATFORM,
    TAGS_AS_GLOBAL,
    ...ASSET,
  ],
  CorpUser: [
    'exists',
    'username',
    'userStatus: status',
    'properties { displayName fullName email title departmentName active customProperties { key value } manager { urn username properties { displayName } } }',
    'editableProperties { displayName title aboutMe teams skills email slack phone }',
    GLOBAL_TAGS,
    PRIVILEGES,
  ],
  CorpGroup: [
    'exists',
    'name',
    'properties { displayName description email slack }',
    'editableProperties { description email slack }',
    'origin { type externalType }',
    OWNERSHIP,
    PRIVILEGES,
  ],
  Tag: ['name', 'properties { name description colorHex }', OWNERSHIP],
  GlossaryTerm: [
    'exists',
    'name hierarchicalName',
    'properties { name definition termSource sourceRef sourceUrl customProperties { key value } }',
    OWNERSHIP,
    DOMAIN,
    DEPRECATION,
    STATUS,
    LINKS,
    NODES,
    PRIVILEGES,
  ],
  GlossaryNode: [
    'exists',
    'properties { name description customProperties { key value } }',
    OWNERSHIP,
    LINKS,
    NODES,
    PRIVILEGES,
  ],
  Domain: ['id', 'properties { name description }', OWNERSHIP, LINKS, PRIVILEGES],
  DataProduct: [
    'properties { name description externalUrl numAssets customProperties { key value } }',
    OWNERSHIP,
    TAGS_AS_GLOBAL,
    TERMS,
    DOMAIN,
    LINKS,
    PRIVILEGES,
  ],
  DataPlatform: ['name', 'properties { displayName type datasetNameDelimiter }'],
  MLModel: [
    'exists',
    'name lastIngested',
    'properties { description externalUrl type version customProperties { key value } }',
    'editableProperties { description }',
    PLATFORM,
    GLOBAL_TAGS,
    BROWSE,
    ...ML,
  ],
  MLModelGroup: [
    'exists',
    'name lastIngested',
    'properties { description externalUrl customProperties { key value } }',
    'editableProperties { description }',
    PLATFORM,
    TAGS_AS_GLOBAL,
    BROWSE,
    ...ML,
  ],
  MLFeatureTable: [
    'exists',
    'name lastIngested',
    'properties { description customProperties { key value } }',
    'editableProperties { description }',
    PLATFORM,
    TAGS_AS_GLOBAL,
    BROWSE,
    ...ML,
  ],
  MLFeature: [
    'exists',
    'name featureNamespace lastIngested',
    'properties { description dataType customProperties { key value } }',
    'editableProperties { description }',
    TAGS_AS_GLOBAL,
    BROWSE,
    ...ML,
  ],
  MLPrimaryKey: [
    'exists',
    'name featureNamespace lastIngested',
    'properties { description dataType customProperties { key value } }',
    'editableProperties { description }',
    TAGS_AS_GLOBAL,
    ...ML,
  ],
};

/** The page's read of an entity of a GraphQL type (one the table above details). */
export function entityQueryOf(graphqlType: string): string {
  const fields = FIELDS[graphqlType] ?? [];
  const usesRef = fields.some((field) => field.includes('...consoleEntityRef'));
  return `query consoleEntityPage($urn: String!) {
  entity(urn: $urn) { urn type ... on ${graphqlType} { ${fields.join('\n')} } }
}${usesRef ? `\n${ENTITY_REF_FRAGMENT}` : ''}`;
}

/** Whether the page reads a GraphQL type's fields (else it reads the entity's aspects through REST). */
export function hasEntityQuery(graphqlType: string | undefined): graphqlType is string {
  return graphqlType !== undefined && FIELDS[graphqlType] !== undefined;
}

/** One page of an entity's related entities of some relationship types. */
export const RELATED_QUERY = `query consoleEntityRelated($urn: String!, $input: RelationshipsInput!) {
  entity(urn: $urn) {
    urn
    relationships(input: $input) { start count total relationships { type entity { ...consoleEntityRef } } }
  }
}
${ENTITY_REF_FRAGMENT}`;

/** A dataset's schema: its fields, with their edits. */
export const SCHEMA_QUERY = `query consoleEntitySchema($urn: String!) {
  dataset(urn: $urn) {
    urn
    privileges { canEditSchemaFieldDescription canEditSchemaFieldTags canEditSchemaFieldGlossaryTerms }
    schemaMetadata {
      name version platformUrn primaryKeys
      fields {
        fieldPath type nativeDataType nullable description isPartOfKey isPartitioningKey label
        globalTags { tags { tag { urn name properties { name } } } }
        glossaryTerms { terms { term { urn name properties { name } } } }
      }
    }
    editableSchemaMetadata {
      editableSchemaFieldInfo {
        fieldPath description
        globalTags { tags { tag { urn name properties { name } } } }
        glossaryTerms { terms { term { urn name properties { name } } } }
      }
    }
  }
}`;

/** The most profiles the stats charts draw. */
export const PROFILE_POINTS = 60;

/** A dataset's profiles (counts over time, the latest one's fields) and usage over a window. */
export const STATS_QUERY = `query consoleEntityStats($urn: String!, $range: TimeRange!, $points: Int!) {
  dataset(urn: $urn) {
    urn
    latest: datasetProfiles(limit: 1) {
      timestampMillis rowCount columnCount sizeInBytes
      fieldProfiles { fieldPath nullCount nullProportion uniqueCount uniqueProportion min max mean median stdev sampleValues }
    }
    series: datasetProfiles(limit: $points) { timestampMillis rowCount columnCount sizeInBytes }
    usageStats(range: $range) {
      buckets { bucket metrics { totalSqlQueries uniqueUserCount } }
      aggregations {
        totalSqlQueries uniqueUserCount
        users { count userEmail user { urn username properties { displayName } } }
        fields { fieldName count }
      }
    }
  }
}`;
