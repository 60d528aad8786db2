/**
 * A read-only, walkable view of the Avro schemas under `schemas/aspects/`, with the annotations `avsc` drops
 * (`Aspect`, `Searchable`, `Relationship`, `java`, …) kept. Named types are shared: the same record reached twice is the
 * same object, and recursive records are cycles, so walk with a visited set.
 */
export type AvroSchema =
  PrimitiveSchema | RecordSchema | EnumSchema | FixedSchema | ArraySchema | MapSchema | UnionSchema;

/** Extra attributes of a schema or field, as written in the `.avsc` file (`{"java": {"class": …}}`, `{"Searchable": …}`). */
export type Annotations = Readonly<Record<string, unknown>>;

export type PrimitiveTypeName = 'null' | 'boolean' | 'int' | 'long' | 'float' | 'double' | 'bytes' | 'string';

export interface PrimitiveSchema {
  readonly type: PrimitiveTypeName;
  readonly annotations: Annotations;
}

export interface RecordSchema {
  readonly type: 'record';
  /** Full name, e.g. `com.linkedin.common.Ownership`. */
  readonly name: string;
  readonly doc: string | undefined;
  readonly fields: readonly FieldSchema[];
  readonly annotations: Annotations;
  field(name: string): FieldSchema | undefined;
}

export interface FieldSchema {
  readonly name: string;
  readonly type: AvroSchema;
  readonly doc: string | undefined;
  /** True when the field may be absent: its type is a union with `null`, or it has a default. */
  readonly optional: boolean;
  /** True when the field has a default (which validation never fills in). */
  readonly hasDefault: boolean;
  readonly defaultValue: unknown;
  /** Field-level annotations: `Searchable`, `Relationship`, `TimeseriesField…`, `java`, … */
  readonly annotations: Annotations;
}

export interface EnumSchema {
  readonly type: 'enum';
  readonly name: string;
  readonly doc: string | undefined;
  readonly symbols: readonly string[];
  readonly annotations: Annotations;
}

export interface FixedSchema {
  readonly type: 'fixed';
  readonly name: string;
  readonly size: number;
  readonly annotations: Annotations;
}

export interface ArraySchema {
  readonly type: 'array';
  readonly items: AvroSchema;
  readonly annotations: Annotations;
}

export interface MapSchema {
  readonly type: 'map';
  readonly values: AvroSchema;
  readonly annotations: Annotations;
}

export interface UnionSchema {
  readonly type: 'union';
  readonly members: readonly AvroSchema[];
}

/** The type of an optional value when it is there: `["null", T]` → T; other schemas (real unions too) unchanged. */
export function unwrapOptional(type: AvroSchema): AvroSchema {
  if (type.type !== 'union') return type;
  const present = type.members.filter((member) => member.type !== 'null');
  return present.length === 1 && present.length < type.members.length ? (present[0] as AvroSchema) : type;
}

/** The key a union member takes in Pegasus JSON: a named type's full name, otherwise its type name (`string`, `array`). */
export function unionMemberKey(member: AvroSchema): string {
  switch (member.type) {
    case 'record':
    case 'enum':
    case 'fixed':
      return member.name;
    default:
      return member.type;
  }
}

/** What {@link urnEntityTypeOfClass} answers for the generic `…urn.Urn` class: a URN of any entity type. */
export const ANY_ENTITY_TYPE = '*';

/**
 * The entity type a typed URN must have, from a `java.class` annotation: `com.linkedin.common.urn.DatasetUrn` →
 * `dataset`, `…CorpGroupUrn` → `corpGroup`, `…MLModelUrn` → `mlModel`. {@link ANY_ENTITY_TYPE} for the generic
 * `…urn.Urn`; `undefined` when the class is not a URN class.
 */
export function urnEntityTypeOfClass(javaClass: string): string | undefined {
  const simpleName = javaClass.split('.').pop() ?? '';
  if (!simpleName.endsWith('Urn')) return undefined;
  const prefix = simpleName.slice(0, -'Urn'.length);
  if (prefix === '') return ANY_ENTITY_TYPE;
  // Lower-camel, with a leading acronym lowered as a whole: MLModel → mlModel, CorpGroup → corpGroup.
  const acronym = /^[A-Z]+(?=[A-Z][a-z]|$)/.exec(prefix)?.[0] ?? prefix.charAt(0);
  return acronym.toLowerCase() + prefix.slice(acronym.length);
}

/** The `java.class` annotation of a schema or field, if any. */
export function javaClassOf(annotations: Annotations): string | undefined {
  const java = annotations['java'];
  if (java === null || typeof java !== 'object') return undefined;
  const javaClass = (java as Record<string, unknown>)['class'];
  return typeof javaClass === 'string' ? javaClass : undefined;
}
