import {
  EVERY,
  searchableFields,
  unionMemberKey,
  type AvroSchema,
  type EntityRegistry,
  type EntitySpec,
} from '@strata/model';

/**
 * DataHub's `_entityName`: the sort field naming an entity whatever its type — fed, per type, by the `Searchable`
 * fields whose annotation lists `_entityName` among its `fieldNameAliases` (a dataset's `name`, a chart's `title`, a
 * user's `displayName`, an ML model key's `id`). Sorting by it orders every type's results by name together.
 */
export const ENTITY_NAME_FIELD = '_entityName';

/**
 * The document fields aliased as `_entityName` for each entity type, in annotation order (the first one a document
 * has a value of names it). Computed once per type.
 */
export function entityNameFields(registry: EntityRegistry): (entityType: string) => readonly string[] {
  const known = new Map<string, readonly string[]>();
  return (entityType) => {
    let fields = known.get(entityType);
    if (fields === undefined) {
      const entity = registry.entity(entityType);
      fields = entity === undefined ? [] : Object.freeze(nameFieldsOf(entity));
      known.set(entityType, fields);
    }
    return fields;
  };
}

/** The fields of an entity whose `Searchable` annotation aliases them as `_entityName`. */
export function nameFieldsOf(entity: EntitySpec): string[] {
  const fields: string[] = [];
  for (const spec of searchableFields(entity)) {
    const aspect = entity.aspects.find((candidate) => candidate.name === spec.aspect);
    if (aspect === undefined || fields.includes(spec.fieldName)) continue;
    if (aliasesAt(aspect.schema, spec.path).includes(ENTITY_NAME_FIELD)) fields.push(spec.fieldName);
  }
  return fields;
}

/**
 * The `fieldNameAliases` of the `Searchable` annotation that applies at a path of an aspect: the annotation of the
 * field the path ends at, or a path-keyed one (`{"/name": {…}}`) on a field enclosing it, which wins.
 */
function aliasesAt(schema: AvroSchema, path: readonly string[]): string[] {
  let type: AvroSchema = schema;
  let found: unknown;
  for (const [index, segment] of path.entries()) {
    type = present(type);
    if (segment === EVERY) {
      if (type.type === 'array') type = type.items;
      else if (type.type === 'map') type = type.values;
      else return [];
      continue;
    }
    if (type.type === 'union') {
      const member = type.members.find(
        (candidate) => candidate.type !== 'null' && unionMemberKey(candidate) === segment,
      );
      if (member === undefined) return [];
      type = member;
      continue;
    }
    if (type.type !== 'record') return [];
    const field = type.field(segment);
    if (field === undefined) return [];
    const annotation = field.annotations['Searchable'];
    if (isObject(annotation)) {
      const rest = `/${path.slice(index + 1).join('/')}`;
      const keyed = Object.keys(annotation).some((key) => key.startsWith('/'));
      if (keyed && isObject(annotation[rest])) found = annotation[rest];
      else if (!keyed && index === path.length - 1 && found === undefined) found = annotation;
    }
    type = field.type;
  }
  const aliases = isObject(found) ? found['fieldNameAliases'] : undefined;
  return Array.isArray(aliases) ? aliases.filter((alias): alias is string => typeof alias === 'string') : [];
}

/** An optional value's type (`["null", T]` → T); any other schema as it is. */
function present(type: AvroSchema): AvroSchema {
  if (type.type !== 'union') return type;
  const members = type.members.filter((member) => member.type !== 'null');
  return members.length === 1 && members.length < type.members.length ? (members[0] as AvroSchema) : type;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
