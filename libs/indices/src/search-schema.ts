import {
  searchableFields,
  type EntityRegistry,
  type EntitySpec,
  type SearchableFieldSpec,
  type SearchableFieldType,
} from '@strata/model';

/**
 * The search document of each entity type, as both engines index it: one entry per document field, merged from every
 * `Searchable` annotation that feeds it (`SearchableFieldSpec`s of the same `fieldName` in several aspects), plus the
 * fields DataHub gives every document (`urn`, `removed`) and the `hasValuesFieldName` flags. Declared once from the
 * registry: the SQLite adapter builds its full-text columns from it, the Elasticsearch adapter its mappings.
 */
export interface SearchSchema {
  /** The schema of that entity type, or undefined when the registry has no such entity. */
  entity(entityType: string): EntitySearchSchema | undefined;
  entities(): readonly EntitySearchSchema[];
}

export interface EntitySearchSchema {
  readonly entityType: string;
  /** Every document field, in first-annotation order (`urn` first). */
  readonly fields: readonly IndexField[];
  field(name: string): IndexField | undefined;
  /** Fields matched by a query term that names no field (`queryByDefault`). */
  readonly defaultFields: readonly IndexField[];
  /** Facets (`addToFilters`), reported as `searchResultMetadatas`. */
  readonly facets: readonly IndexField[];
  /** Fields autocomplete suggests from (`enableAutocomplete`). */
  readonly autocompleteFields: readonly IndexField[];
}

/** One document field. */
export interface IndexField {
  readonly name: string;
  readonly type: SearchableFieldType;
  /** Highest boost among the annotations feeding the field. */
  readonly boost: number;
  readonly facet: boolean;
  /** The facet's display name (`Tagged With`); the field name when no annotation overrides it. */
  readonly displayName: string;
  readonly queryByDefault: boolean;
  readonly autocomplete: boolean;
  /** True for fields queried as text (every type but browse paths, whose prefixes are matched instead). */
  readonly text: boolean;
}

/** The document field holding every browse path (DataHub's `browsePaths`). */
export const BROWSE_PATHS_FIELD = 'browsePaths';
/** The document field every document has: the soft-delete flag (false unless the entity's status says removed). */
export const REMOVED_FIELD = 'removed';
/**
 * The document field every document has once changed through Strata: when the entity last changed in Strata (epoch
 * milliseconds, DATETIME), from the document's `lastChangedAt` — unlike `lastModifiedAt`, which the source
 * platform reports. No annotation of DataHub's models feeds a field of this name.
 */
export const LAST_CHANGED_FIELD = 'lastChangedAt';
/** The document field holding the entity URN. */
export const URN_FIELD = 'urn';

/** Builds the search schema of every entity of the registry. Pure; call once per process. */
export function createSearchSchema(registry: EntityRegistry): SearchSchema {
  const byName = new Map<string, EntitySearchSchema>();
  for (const entity of registry.entities()) byName.set(entity.name, entitySchema(entity));
  const all = Object.freeze([...byName.values()]);
  return {
    entity: (entityType) => byName.get(entityType),
    entities: () => all,
  };
}

function entitySchema(entity: EntitySpec): EntitySearchSchema {
  const fields = new Map<string, IndexField>();
  const merge = (field: IndexField): void => {
    const known = fields.get(field.name);
    fields.set(
      field.name,
      known === undefined
        ? field
        : {
            ...known,
            boost: Math.max(known.boost, field.boost),
            facet: known.facet || field.facet,
            displayName: known.facet ? known.displayName : field.displayName,
            queryByDefault: known.queryByDefault || field.queryByDefault,
            autocomplete: known.autocomplete || field.autocomplete,
          },
    );
  };
  merge(builtIn(URN_FIELD, 'URN', { queryByDefault: true }));
  for (const spec of searchableFields(entity)) {
    merge(fromAnnotation(spec));
    if (spec.hasValuesFieldName !== undefined) merge(builtIn(spec.hasValuesFieldName, 'BOOLEAN'));
  }
  merge(builtIn(REMOVED_FIELD, 'BOOLEAN'));
  merge(builtIn(LAST_CHANGED_FIELD, 'DATETIME'));
  const list = Object.freeze([...fields.values()].map((field) => Object.freeze(field)));
  return Object.freeze({
    entityType: entity.name,
    fields: list,
    field: (name: string) => fields.get(name),
    defaultFields: Object.freeze(list.filter((field) => field.queryByDefault && field.text)),
    facets: Object.freeze(list.filter((field) => field.facet)),
    autocompleteFields: Object.freeze(list.filter((field) => field.autocomplete)),
  });
}

/**
 * Fields Strata reports as facets although their annotations do not say `addToFilters`: the metadata tests an entity
 * passes and fails. DataHub aggregates them only when a GraphQL client asks; the REST search has no way to ask, and
 * "how many fail this test" is what they are searched for. Their display names, as facets.
 */
export const STRATA_FACETS: Readonly<Record<string, string>> = {
  failingTests: 'Failing Tests',
  passingTests: 'Passing Tests',
};

function fromAnnotation(spec: SearchableFieldSpec): IndexField {
  const ownFacet = Object.hasOwn(STRATA_FACETS, spec.fieldName) ? STRATA_FACETS[spec.fieldName] : undefined;
  return {
    name: spec.fieldName,
    type: spec.fieldType,
    boost: spec.boostScore,
    facet: spec.addToFilters || ownFacet !== undefined,
    displayName: ownFacet ?? spec.filterName,
    queryByDefault: spec.queryByDefault,
    autocomplete: spec.enableAutocomplete,
    text: isTextType(spec.fieldType),
  };
}

function builtIn(name: string, type: SearchableFieldType, options: { queryByDefault?: boolean } = {}): IndexField {
  return {
    name,
    type,
    boost: 1,
    facet: false,
    displayName: name,
    queryByDefault: options.queryByDefault ?? false,
    autocomplete: false,
    text: isTextType(type),
  };
}

function isTextType(type: SearchableFieldType): boolean {
  return type !== 'BROWSE_PATH' && type !== 'BROWSE_PATH_V2';
}
