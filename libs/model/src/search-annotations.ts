import type { AspectSpec, EntitySpec } from './entity-registry';
import { unionMemberKey, unwrapOptional, type AvroSchema, type FieldSchema } from './record-schema';

/**
 * The search and graph annotations of an entity's aspects (`Searchable`, `Relationship`, see `schemas/README.md`),
 * resolved against the aspect schemas with DataHub's defaults (`SearchableAnnotation.java`, `RelationshipAnnotation.java`).
 * Pure: the search indexer and the graph writer read these specs and pull values out of aspect values with
 * {@link valuesAt}.
 */

/** DataHub's `SearchableAnnotation.FieldType`. */
export const SEARCHABLE_FIELD_TYPES = [
  'KEYWORD',
  'TEXT',
  'TEXT_PARTIAL',
  'WORD_GRAM',
  'BROWSE_PATH',
  'BROWSE_PATH_V2',
  'URN',
  'URN_PARTIAL',
  'BOOLEAN',
  'COUNT',
  'DATETIME',
  'OBJECT',
  'DOUBLE',
  'MAP_ARRAY',
] as const;

export type SearchableFieldType = (typeof SEARCHABLE_FIELD_TYPES)[number];

/** Field types that are part of the default query when the annotation does not say (DataHub's `queryByDefault`). */
const QUERY_BY_DEFAULT_TYPES: ReadonlySet<SearchableFieldType> = new Set([
  'TEXT',
  'TEXT_PARTIAL',
  'WORD_GRAM',
  'URN',
  'URN_PARTIAL',
]);

/** The path segment that stands for every array item or every map value. */
export const EVERY = '*';

/** The path segment that stands for every key of a map (DataHub's `$key`). */
export const KEYS = '$key';

/** One `Searchable` annotation, resolved: one search-document field fed from one place in one aspect. */
export interface SearchableFieldSpec {
  /** The search-document field (`tags`, `id`); defaults to the name of the last record field on the path. */
  readonly fieldName: string;
  readonly fieldType: SearchableFieldType;
  readonly boostScore: number;
  readonly addToFilters: boolean;
  /** The facet's display name: `filterNameOverride`, else the field name. */
  readonly filterName: string;
  readonly queryByDefault: boolean;
  readonly enableAutocomplete: boolean;
  /** The boolean document field that says whether the field has any value (`hasTags`). */
  readonly hasValuesFieldName?: string;
  /** Aspect name (`globalTags`). */
  readonly aspect: string;
  /** JSON path from the aspect root to the value: `['tags', '*', 'tag']`; `*` = every array item or map value. */
  readonly path: readonly string[];
}

/** One `Relationship` annotation, resolved: graph edges from the entity to the URNs found at the path. */
export interface RelationshipFieldSpec {
  /** Edge name (`OwnedBy`). */
  readonly name: string;
  /** Allowed destination entity types (`corpuser`, `corpGroup`). */
  readonly entityTypes: readonly string[];
  /** True for lineage edges (`DownstreamOf`, `Consumes`, `Contains`). Defaults to false. */
  readonly isLineage: boolean;
  /**
   * For a lineage edge, whether its destination is upstream of the entity (`DownstreamOf`, `Consumes`) rather than
   * downstream (`Produces`). DataHub's `isUpstream`; defaults to true.
   */
  readonly isUpstream: boolean;
  readonly aspect: string;
  /** As in {@link SearchableFieldSpec.path}. */
  readonly path: readonly string[];
  /** Where each edge's own stamps are, when the annotation names any (DataHub's `createdOn`, `updatedOn`, …). */
  readonly stamps?: RelationshipStampPaths;
}

/**
 * Paths from the aspect root (`['upstreams', '*', 'created', 'time']`) to the values an edge takes its stamps from:
 * for each edge, the value at the same array item as the edge's destination. Only the paths the annotation names.
 */
export interface RelationshipStampPaths {
  readonly createdOn?: readonly string[];
  readonly createdActor?: readonly string[];
  readonly updatedOn?: readonly string[];
  readonly updatedActor?: readonly string[];
  /** The edge's properties map; DataHub's `{"source": "UI"}` marks lineage drawn by hand. */
  readonly properties?: readonly string[];
}

const STAMP_ATTRIBUTES = ['createdOn', 'createdActor', 'updatedOn', 'updatedActor', 'properties'] as const;

const searchableCache = new WeakMap<EntitySpec, readonly SearchableFieldSpec[]>();
const relationshipCache = new WeakMap<EntitySpec, readonly RelationshipFieldSpec[]>();

/**
 * Every `Searchable` annotation of every versioned (non-timeseries) aspect of the entity, in aspect then field order.
 * Fields of the same name from several aspects stay separate entries. Throws an Error naming aspect and path when an
 * annotation is malformed or its path does not resolve in the aspect schema.
 */
export function searchableFields(entity: EntitySpec): readonly SearchableFieldSpec[] {
  let specs = searchableCache.get(entity);
  if (specs === undefined) {
    specs = Object.freeze(
      annotatedPaths(entity, 'Searchable').map(({ aspect, path, target, defaultName, attributes, where }) =>
        searchableSpec(aspect, path, target, defaultName, attributes, where),
      ),
    );
    searchableCache.set(entity, specs);
  }
  return specs;
}

/**
 * Every `Relationship` annotation of every versioned (non-timeseries) aspect of the entity, in aspect then field order.
 * Throws like {@link searchableFields}.
 */
export function relationshipFields(entity: EntitySpec): readonly RelationshipFieldSpec[] {
  let specs = relationshipCache.get(entity);
  if (specs === undefined) {
    specs = Object.freeze(
      annotatedPaths(entity, 'Relationship').map(({ aspect, path, attributes, where }) =>
        relationshipSpec(aspect, path, attributes, where),
      ),
    );
    relationshipCache.set(entity, specs);
  }
  return specs;
}

/**
 * Every value at the path in an aspect value, flattened: `*` expands array items and map (object) values, `$key` map
 * keys, an array
 * found at the end of the path is spread, null and missing values give nothing. A Pegasus union wrapper
 * (`{"string": "urn:li:…"}`, `{"com.linkedin.schema.StringType": {}}`) on the way is unwrapped when the next segment
 * is not one of its keys, so paths may name the member (`['inputs', '*', 'string']`) or skip it.
 */
export function valuesAt(value: unknown, path: readonly string[]): unknown[] {
  const out: unknown[] = [];
  collect(value, path, 0, out);
  return out;
}

function collect(value: unknown, path: readonly string[], index: number, out: unknown[]): void {
  if (value === null || value === undefined) return;
  if (index === path.length) {
    if (Array.isArray(value)) {
      for (const item of value) if (item !== null && item !== undefined) out.push(item);
    } else {
      out.push(value);
    }
    return;
  }
  const segment = path[index] as string;
  if (Array.isArray(value)) {
    if (segment === EVERY) for (const item of value) collect(item, path, index + 1, out);
    return;
  }
  if (!isObject(value)) return;
  if (segment === EVERY) {
    for (const item of Object.values(value)) collect(item, path, index + 1, out);
    return;
  }
  if (segment === KEYS) {
    for (const key of Object.keys(value)) collect(key, path, index + 1, out);
    return;
  }
  if (Object.hasOwn(value, segment)) {
    collect(value[segment], path, index + 1, out);
    return;
  }
  const wrapped = unionWrapperContent(value);
  if (wrapped !== undefined) collect(wrapped.content, path, index, out);
}

const PRIMITIVE_MEMBER_KEYS = new Set([
  'null',
  'boolean',
  'int',
  'long',
  'float',
  'double',
  'bytes',
  'string',
  'array',
  'map',
]);

/** The content of a Pegasus union wrapper: one key, a primitive type name or a full (dotted) type name. */
function unionWrapperContent(value: Record<string, unknown>): { content: unknown } | undefined {
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  const key = keys[0] as string;
  if (!PRIMITIVE_MEMBER_KEYS.has(key) && !key.includes('.')) return undefined;
  return { content: value[key] };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------------------------------

interface AnnotatedPath {
  readonly aspect: string;
  readonly path: readonly string[];
  /** The schema of the value at the path, optional (`["null", T]`) unions unwrapped. */
  readonly target: AvroSchema;
  /** The last record field name on the path. */
  readonly defaultName: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** `Searchable annotation of aspect globalTags at /tags/*\/tag`, for error messages. */
  readonly where: string;
}

/**
 * Every annotated place in an entity's versioned aspects, as DataHub finds them: a field's own annotation applies at
 * the field, whatever depth its record sits at (the `owner` field of `Owner`, inside `ownership.owners`), and a
 * path-keyed annotation on an enclosing field (`{"/*\/tag": {…}}`) applies at that path and replaces what the field
 * there declares itself. Recursive records are entered once per path.
 */
function annotatedPaths(entity: EntitySpec, annotation: 'Searchable' | 'Relationship'): AnnotatedPath[] {
  const found: AnnotatedPath[] = [];
  for (const aspect of entity.aspects) {
    if (aspect.kind === 'timeseries') continue;
    const atPath = new Map<string, AnnotatedPath>();
    const overridden = new Set<string>();
    const place = (entry: AnnotatedPath, override: boolean): void => {
      const key = entry.path.join('/');
      if (overridden.has(key)) return;
      if (override) overridden.add(key);
      atPath.set(key, entry);
    };
    const walk = (type: AvroSchema, path: readonly string[], enclosing: ReadonlySet<string>): void => {
      const present = unwrapOptional(type);
      switch (present.type) {
        case 'record': {
          if (enclosing.has(present.name)) return;
          const inside = new Set([...enclosing, present.name]);
          for (const field of present.fields) {
            const fieldPath = [...path, field.name];
            const raw = field.annotations[annotation];
            if (raw !== undefined) {
              for (const [written, attributes] of annotationEntries(raw, annotation, aspect, fieldPath)) {
                // DataHub's own models put a path-keyed annotation on a single value here and there
                // (`{"/*": {…}}` on an optional URN); its processor applies it to the value itself, and so does this.
                const subPath = isScalar(field.type) ? [] : written;
                const fullPath = Object.freeze([...fieldPath, ...subPath]);
                const where = `${annotation} annotation of aspect ${aspect.name} at /${fullPath.join('/')}`;
                const { target, defaultName } = resolvePath(field, subPath, where);
                place(
                  { aspect: aspect.name, path: fullPath, target, defaultName, attributes, where },
                  subPath.length > 0,
                );
              }
            }
            walk(field.type, fieldPath, inside);
          }
          return;
        }
        case 'array':
          walk(present.items, [...path, EVERY], enclosing);
          return;
        case 'map':
          walk(present.values, [...path, EVERY], enclosing);
          return;
        case 'union':
          for (const member of present.members) {
            if (member.type !== 'null') walk(member, [...path, unionMemberKey(member)], enclosing);
          }
          return;
        default:
          return;
      }
    };
    walk(aspect.schema, [], new Set());
    found.push(...atPath.values());
  }
  return found;
}

/**
 * An annotation is either the attributes themselves (on a field holding the value) or an object keyed by paths inside
 * the field's value (`{"/*\/tag": {…}}`).
 */
function annotationEntries(
  raw: unknown,
  annotation: string,
  aspect: AspectSpec,
  fieldPath: readonly string[],
): [string[], Readonly<Record<string, unknown>>][] {
  const fail = (reason: string): never => {
    throw new Error(`${annotation} annotation of aspect ${aspect.name} at /${fieldPath.join('/')}: ${reason}`);
  };
  if (!isObject(raw)) return fail('must be an object');
  const keys = Object.keys(raw);
  const pathKeys = keys.filter((key) => key.startsWith('/'));
  if (pathKeys.length === 0) return [[[], raw]];
  if (pathKeys.length !== keys.length) {
    return fail(`mixes path keys (${pathKeys.join(', ')}) with attributes`);
  }
  return pathKeys.map((key) => {
    const attributes = raw[key];
    if (!isObject(attributes)) return fail(`the entry for ${key} must be an object`);
    const segments = key.slice(1).split('/');
    if (segments.some((segment) => segment === '')) return fail(`${key} has an empty path segment`);
    return [segments, attributes];
  });
}

/**
 * Walks the path inside the field's value: `*` through arrays and maps, field names through records, member keys
 * (`string`, `com.linkedin.schema.StringType`) through real unions; optional unions (`["null", T]`) are transparent,
 * as in Pegasus JSON.
 */
function resolvePath(
  field: FieldSchema,
  subPath: readonly string[],
  where: string,
): { target: AvroSchema; defaultName: string } {
  let type = unwrapOptional(field.type);
  let defaultName = field.name;
  for (const segment of subPath) {
    const fail = (reason: string): never => {
      throw new Error(`${where}: the path does not resolve in the schema: at "${segment}", ${reason}`);
    };
    switch (type.type) {
      case 'array':
        if (segment !== EVERY) fail(`an array is entered with "${EVERY}"`);
        type = type.items;
        break;
      case 'map':
        if (segment === KEYS) {
          type = { type: 'string', annotations: {} };
          break;
        }
        if (segment !== EVERY) fail(`a map is entered with "${EVERY}" (its values) or "${KEYS}" (its keys)`);
        type = type.values;
        break;
      case 'record': {
        const next = type.field(segment);
        if (next === undefined) return fail(`record ${type.name} has no such field`);
        type = next.type;
        defaultName = segment;
        break;
      }
      case 'union': {
        const member = type.members.find(
          (candidate) => candidate.type !== 'null' && unionMemberKey(candidate) === segment,
        );
        if (member === undefined) {
          const keys = type.members.filter((m) => m.type !== 'null').map(unionMemberKey);
          return fail(`the union has no member ${segment} (members: ${keys.join(', ')})`);
        }
        type = member;
        break;
      }
      default:
        return fail(`a ${type.type} value has no parts`);
    }
    type = unwrapOptional(type);
  }
  return { target: type, defaultName };
}

/** Whether a value of the type has no parts to enter: a primitive, an enum or a fixed value. */
function isScalar(type: AvroSchema): boolean {
  const present = unwrapOptional(type);
  return present.type !== 'record' && present.type !== 'array' && present.type !== 'map' && present.type !== 'union';
}

/** DataHub's default field type for a value of that schema when the annotation does not give one. */
function defaultFieldType(type: AvroSchema): SearchableFieldType {
  switch (type.type) {
    case 'int':
    case 'long':
      return 'COUNT';
    case 'float':
    case 'double':
      return 'DOUBLE';
    case 'boolean':
      return 'BOOLEAN';
    case 'map':
      return 'KEYWORD';
    case 'array':
      return defaultFieldType(unwrapOptional(type.items));
    default:
      return 'TEXT';
  }
}

function searchableSpec(
  aspect: string,
  path: readonly string[],
  target: AvroSchema,
  defaultName: string,
  attributes: Readonly<Record<string, unknown>>,
  where: string,
): SearchableFieldSpec {
  const read = attributeReader(attributes);
  const fieldName = read('fieldName', 'string') ?? defaultName;
  const rawType = read('fieldType', 'string');
  if (rawType !== undefined && !(SEARCHABLE_FIELD_TYPES as readonly string[]).includes(rawType)) {
    throw new Error(`${where}: unknown fieldType ${rawType} (known: ${SEARCHABLE_FIELD_TYPES.join(', ')})`);
  }
  const fieldType = (rawType as SearchableFieldType | undefined) ?? defaultFieldType(target);
  const hasValuesFieldName = read('hasValuesFieldName', 'string');
  return Object.freeze({
    fieldName,
    fieldType,
    boostScore: read('boostScore', 'number') ?? 1,
    addToFilters: read('addToFilters', 'boolean') ?? false,
    filterName: read('filterNameOverride', 'string') ?? fieldName,
    queryByDefault: read('queryByDefault', 'boolean') ?? QUERY_BY_DEFAULT_TYPES.has(fieldType),
    enableAutocomplete: read('enableAutocomplete', 'boolean') ?? false,
    ...(hasValuesFieldName === undefined ? {} : { hasValuesFieldName }),
    aspect,
    path,
  });
}

function relationshipSpec(
  aspect: string,
  path: readonly string[],
  attributes: Readonly<Record<string, unknown>>,
  where: string,
): RelationshipFieldSpec {
  const read = attributeReader(attributes);
  const name = read('name', 'string');
  if (name === undefined || name === '') throw new Error(`${where}: "name" is required`);
  const entityTypes = attributes['entityTypes'];
  if (
    !Array.isArray(entityTypes) ||
    entityTypes.length === 0 ||
    !entityTypes.every((type): type is string => typeof type === 'string' && type !== '')
  ) {
    throw new Error(`${where}: "entityTypes" must be a non-empty array of entity type names`);
  }
  const stamps: Record<string, readonly string[]> = {};
  for (const attribute of STAMP_ATTRIBUTES) {
    const written = read(attribute, 'string');
    if (written === undefined) continue;
    const stampPath = written.split('/').filter((segment) => segment !== '');
    if (stampPath.length > 0) stamps[attribute] = Object.freeze(stampPath);
  }
  return Object.freeze({
    name,
    entityTypes: Object.freeze([...entityTypes]),
    isLineage: read('isLineage', 'boolean') ?? false,
    isUpstream: read('isUpstream', 'boolean') ?? true,
    aspect,
    path,
    ...(Object.keys(stamps).length === 0 ? {} : { stamps: Object.freeze(stamps) }),
  });
}

interface AttributeTypes {
  string: string;
  number: number;
  boolean: boolean;
}

/**
 * Reads an optional attribute. One of another type counts as absent, as DataHub reads annotations (its own models write
 * `"queryByDefault": "true"` in places, which DataHub ignores); a missing required one is the caller's error.
 */
function attributeReader(attributes: Readonly<Record<string, unknown>>) {
  return <K extends keyof AttributeTypes>(key: string, kind: K): AttributeTypes[K] | undefined => {
    const value = attributes[key];
    return typeof value === kind ? (value as AttributeTypes[K]) : undefined;
  };
}
