/**
 * How aspect values become the value types of the GraphQL API: the facts of DataHub's mappers (which aspect field
 * feeds which GraphQL field, the defaults of non-null fields, the URNs DataHub derives) as pure functions. A URN is left
 * as text where an entity is expected: the default resolver makes it that entity (see `adaptingFieldResolver`), and a
 * map where a list of entries is expected becomes its entries, keyed to `__urn`.
 */
import type { LoadedEntity } from '../context';

/** A record of an aspect value. */
export type Value = Readonly<Record<string, unknown>>;

/** The run id DataHub records for a write that names no ingestion run. */
export const DEFAULT_RUN_ID = 'no-run-id-provided';

/** The platform DataHub answers for a container whose platform no aspect names. */
export const UNKNOWN_PLATFORM_URN = 'urn:li:dataPlatform:unknown';

/** The platform DataHub answers for a document no platform instance aspect places. */
export const DATAHUB_PLATFORM_URN = 'urn:li:dataPlatform:datahub';

export function recordOf(value: unknown): Value | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Value) : undefined;
}

export function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function listOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** An aspect value as a GraphQL type that mirrors it, its maps answered as entries of the entity `urn`. */
export function mirrored(value: Value, urn: string): Value {
  return { ...value, __urn: urn };
}

/** DataHub's `AuditStamp`: `time` is never null (0 when absent, as DataHub's defaults make it). */
export function auditStampOf(value: unknown): { time: number; actor: string | null } {
  const stamp = recordOf(value);
  return { time: numberOf(stamp?.['time']) ?? 0, actor: textOf(stamp?.['actor']) ?? null };
}

/** A `TimeStamp` (time and optional actor) as an `AuditStamp`; null when there is none. */
export function timeStampAsAuditStamp(value: unknown): { time: number; actor: string | null } | null {
  return recordOf(value) === undefined ? null : auditStampOf(value);
}

/** The URN of the data platform of that name (`urn:li:dataPlatform:<name>`), as DataHub builds it from a key. */
export function platformUrnOf(name: string): string {
  return `urn:li:dataPlatform:${name}`;
}

/** The ownership type entity DataHub stands for a legacy ownership type (`TECHNICAL_OWNER` → `__system__technical_owner`). */
export function ownershipTypeUrnOf(type: string): string {
  return `urn:li:ownershipType:__system__${type.toLowerCase()}`;
}

/** `Ownership`: every owner with its legacy type and its ownership type entity, associated with `urn`. */
export function ownershipOf(value: Value, urn: string): Value {
  return {
    lastModified: auditStampOf(value['lastModified']),
    owners: listOf(value['owners']).flatMap((item) => {
      const owner = recordOf(item);
      const ownerUrn = textOf(owner?.['owner']);
      if (owner === undefined || ownerUrn === undefined) return [];
      const type = textOf(owner['type']) ?? 'NONE';
      return [
        {
          owner: ownerUrn,
          type,
          ownershipType: textOf(owner['typeUrn']) ?? ownershipTypeUrnOf(type),
          associatedUrn: urn,
        },
      ];
    }),
  };
}

/** `GlobalTags`: the tags, each associated with `urn`. */
export function globalTagsOf(value: Value, urn: string): Value {
  return {
    tags: listOf(value['tags']).flatMap((item) => {
      const association = recordOf(item);
      const tag = textOf(association?.['tag']);
      return tag === undefined ? [] : [{ tag, associatedUrn: urn, context: textOf(association?.['context']) ?? null }];
    }),
  };
}

/** `GlossaryTerms`: the terms, each associated with `urn`, with the actor that added it. */
export function glossaryTermsOf(value: Value, urn: string): Value {
  return {
    terms: listOf(value['terms']).flatMap((item) => {
      const association = recordOf(item);
      const term = textOf(association?.['urn']);
      if (term === undefined) return [];
      return [
        {
          term,
          associatedUrn: urn,
          actor: textOf(association?.['actor']) ?? null,
          context: textOf(association?.['context']) ?? null,
        },
      ];
    }),
  };
}

/** `InstitutionalMemory`: each link, its description serving as label, its creator as author. */
export function institutionalMemoryOf(value: Value, urn: string): Value {
  return {
    elements: listOf(value['elements']).flatMap((item) => {
      const element = recordOf(item);
      const url = textOf(element?.['url']);
      if (element === undefined || url === undefined) return [];
      const description = textOf(element['description']) ?? '';
      const created = auditStampOf(element['createStamp']);
      return [
        {
          url,
          label: description,
          description,
          author: created.actor,
          created,
          updated: recordOf(element['updateStamp']) === undefined ? null : auditStampOf(element['updateStamp']),
          associatedUrn: urn,
        },
      ];
    }),
  };
}

/** `Deprecation` (from `deprecation`, or a dataset's legacy `datasetDeprecation`). */
export function deprecationOf(value: Value): Value {
  const actor = textOf(value['actor']) ?? null;
  return {
    deprecated: value['deprecated'] === true,
    decommissionTime: numberOf(value['decommissionTime']) ?? null,
    note: textOf(value['note']) ?? null,
    actor,
    actorEntity: actor,
    replacement: textOf(value['replacement']) ?? null,
  };
}

/** `BrowsePathV2`: each entry's id as its name, and the entity it stands for when it names one. */
export function browsePathV2Of(value: Value): Value {
  return {
    path: listOf(value['path']).flatMap((item) => {
      const entry = recordOf(item);
      const name = textOf(entry?.['id']);
      return name === undefined ? [] : [{ name, entity: textOf(entry?.['urn']) ?? null }];
    }),
  };
}

/** The first domain of a `domains` aspect (DataHub answers one), associated with `urn`; undefined when none. */
export function firstDomainOf(value: Value): string | undefined {
  const association = recordOf(listOf(value['domainAssociations'])[0]);
  return textOf(association?.['domain']) ?? textOf(listOf(value['domains'])[0]);
}

/** DataHub's `SchemaFieldDataType` for each member of the `SchemaFieldDataType.type` union. */
export const SCHEMA_FIELD_DATA_TYPES: Readonly<Record<string, string>> = {
  'com.linkedin.schema.BooleanType': 'BOOLEAN',
  'com.linkedin.schema.FixedType': 'FIXED',
  'com.linkedin.schema.StringType': 'STRING',
  'com.linkedin.schema.BytesType': 'BYTES',
  'com.linkedin.schema.NumberType': 'NUMBER',
  'com.linkedin.schema.DateType': 'DATE',
  'com.linkedin.schema.TimeType': 'TIME',
  'com.linkedin.schema.EnumType': 'ENUM',
  'com.linkedin.schema.NullType': 'NULL',
  'com.linkedin.schema.MapType': 'MAP',
  'com.linkedin.schema.ArrayType': 'ARRAY',
  'com.linkedin.schema.UnionType': 'UNION',
  'com.linkedin.schema.RecordType': 'STRUCT',
};

/** The GraphQL data type of a schema field's `type` (`{type: {"com.linkedin.schema.StringType": {}}}` → `STRING`). */
export function schemaFieldDataTypeOf(type: unknown): string {
  const member = Object.keys(recordOf(recordOf(type)?.['type']) ?? {})[0];
  const mapped = member === undefined ? undefined : SCHEMA_FIELD_DATA_TYPES[member];
  // Validation admits only the union's members, so this is a value the store should never hold.
  if (mapped === undefined) throw new Error(`Unrecognized schema field data type ${member ?? '(none)'}`);
  return mapped;
}

/**
 * The schema field entity of a field of `parent`: `urn:li:schemaField:(<parent>,<fieldPath>)`, the field path's
 * parentheses and commas percent-encoded so that the URN keeps two parts.
 */
export function schemaFieldUrnOf(parent: string, fieldPath: string): string {
  const encoded = fieldPath.replaceAll('(', '%28').replaceAll(')', '%29').replaceAll(',', '%2C');
  return `urn:li:schemaField:(${parent},${encoded})`;
}

/** One `SchemaField` of a schema of `urn`: non-null flags false when absent, tags and terms associated with `urn`. */
export function schemaFieldOf(value: Value, urn: string): Value {
  const fieldPath = textOf(value['fieldPath']) ?? '';
  const tags = recordOf(value['globalTags']);
  const terms = recordOf(value['glossaryTerms']);
  const globalTags = tags === undefined ? null : globalTagsOf(tags, urn);
  return {
    fieldPath,
    jsonPath: textOf(value['jsonPath']) ?? null,
    description: textOf(value['description']) ?? null,
    label: textOf(value['label']) ?? null,
    nativeDataType: textOf(value['nativeDataType']) ?? null,
    nullable: value['nullable'] === true,
    recursive: value['recursive'] === true,
    isPartOfKey: value['isPartOfKey'] === true,
    isPartitioningKey: typeof value['isPartitioningKey'] === 'boolean' ? value['isPartitioningKey'] : null,
    // Resolved on demand, so that a type the mapping lacks fails this field alone.
    type: () => schemaFieldDataTypeOf(value['type']),
    globalTags,
    tags: globalTags,
    glossaryTerms: terms === undefined ? null : glossaryTermsOf(terms, urn),
    schemaFieldEntity: schemaFieldUrnOf(urn, fieldPath),
  };
}

/** `SchemaMetadata` of `urn` at `aspectVersion`. */
export function schemaMetadataOf(value: Value, urn: string, aspectVersion: number | null): Value {
  return {
    name: textOf(value['schemaName']) ?? '',
    platformUrn: textOf(value['platform']) ?? '',
    version: numberOf(value['version']) ?? 0,
    hash: textOf(value['hash']) ?? '',
    cluster: textOf(value['cluster']) ?? null,
    datasetUrn: textOf(value['dataset']) ?? null,
    primaryKeys: Array.isArray(value['primaryKeys']) ? value['primaryKeys'] : null,
    aspectVersion,
    createdAt: null,
    fields: listOf(value['fields']).flatMap((field) => {
      const record = recordOf(field);
      return record === undefined ? [] : [schemaFieldOf(record, urn)];
    }),
  };
}

/** `EditableSchemaMetadata` of `urn`: each field's description, tags and terms. */
export function editableSchemaMetadataOf(value: Value, urn: string): Value {
  return {
    editableSchemaFieldInfo: listOf(value['editableSchemaFieldInfo']).flatMap((item) => {
      const info = recordOf(item);
      const fieldPath = textOf(info?.['fieldPath']);
      if (info === undefined || fieldPath === undefined) return [];
      const tags = recordOf(info['globalTags']);
      const terms = recordOf(info['glossaryTerms']);
      const globalTags = tags === undefined ? null : globalTagsOf(tags, urn);
      return [
        {
          fieldPath,
          description: textOf(info['description']) ?? null,
          globalTags,
          tags: globalTags,
          glossaryTerms: terms === undefined ? null : glossaryTermsOf(terms, urn),
        },
      ];
    }),
  };
}

/** A chart's or dashboard's `…Info`/`…Properties`: its title as name, the stamps of its `lastModified`. */
export function chartLikeInfoOf(value: Value, urn: string, urlField: 'chartUrl' | 'dashboardUrl'): Value {
  const stamps = recordOf(value['lastModified']);
  return {
    __urn: urn,
    name: textOf(value['title']) ?? '',
    description: textOf(value['description']) ?? null,
    externalUrl: textOf(value['externalUrl']) ?? textOf(value[urlField]) ?? null,
    customProperties: value['customProperties'] ?? null,
    access: textOf(value['access']) ?? null,
    type: textOf(value['type']) ?? null,
    lastRefreshed: numberOf(value['lastRefreshed']) ?? null,
    created: auditStampOf(stamps?.['created']),
    lastModified: auditStampOf(stamps?.['lastModified']),
  };
}

/** The last part of a glossary term's hierarchical name (`Classification.PII` → `PII`), as DataHub names terms. */
export function glossaryTermNameOf(hierarchicalName: string): string {
  const parts = hierarchicalName.split('.');
  return parts[parts.length - 1] ?? hierarchicalName;
}

/**
 * When the entity was last ingested: the latest `lastObserved` among its aspects written by an ingestion run (their
 * system metadata names a run other than DataHub's default); null when none was.
 */
export function lastIngestedOf(entity: LoadedEntity): number | null {
  let latest: number | null = null;
  for (const aspect of Object.values(entity.aspects)) {
    const metadata = recordOf(aspect?.systemMetadata);
    const observed = numberOf(metadata?.['lastObserved']);
    if (metadata === undefined || observed === undefined) continue;
    const run = [textOf(metadata['lastRunId']), textOf(metadata['runId'])].find(
      (id) => id !== undefined && id !== DEFAULT_RUN_ID,
    );
    if (run !== undefined && (latest === null || observed > latest)) latest = observed;
  }
  return latest;
}

/**
 * Whether anything was ever stored for the entity: its key aspect as written (a read derives the key of an entity
 * never written, and such a key has no system metadata), or any other aspect.
 */
export function existsIn(entity: LoadedEntity, keyAspect: string): boolean {
  return Object.entries(entity.aspects).some(
    ([name, aspect]) => aspect !== undefined && (name !== keyAspect || aspect.systemMetadata !== undefined),
  );
}
