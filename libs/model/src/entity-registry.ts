import type { SchemaFiles } from '@strata/schemas';
import { AspectValidationError, validateAspectValue, type JsonObject } from './aspect-validator';
import type { AvroSchema, RecordSchema } from './record-schema';
import { SchemaError } from './schema-error';
import { loadSchemaTree } from './schema-loader';
import { InvalidUrnError, type Urn } from './urn';

/** The entities Strata knows, from `schemas/entity-registry.json` and the aspect schemas. Immutable. */
export interface EntityRegistry {
  /** The entity of that name (`dataset`), or undefined. */
  entity(name: string): EntitySpec | undefined;
  /** Every entity, in registry-file order. */
  entities(): readonly EntitySpec[];
  /** The entity whose legacy snapshot record has that full name (`com.linkedin.metadata.snapshot.DatasetSnapshot`). */
  entityBySnapshot(recordName: string): EntitySpec | undefined;
}

/** One entity type: its key aspect and the aspects it may carry. */
export interface EntitySpec {
  /** Entity type name, as in URNs: `dataset`, `corpuser`. */
  readonly name: string;
  readonly doc: string | undefined;
  readonly keyAspect: AspectSpec;
  /** Full name of the legacy snapshot record (`com.linkedin.metadata.snapshot.DatasetSnapshot`), if the entity has one. */
  readonly snapshotRecordName: string | undefined;
  /** Every aspect, the key aspect first, in registry-file order. */
  readonly aspects: readonly AspectSpec[];
  aspect(name: string): AspectSpec | undefined;
  /** The aspect whose record has that full name (`com.linkedin.common.Ownership`). */
  aspectByRecordName(recordName: string): AspectSpec | undefined;
  /**
   * The key aspect value a URN of this entity stands for, fields in key order: `urn:li:dataset:(urn:li:dataPlatform:hive,
   * db.t,PROD)` → `{platform: "urn:li:dataPlatform:hive", name: "db.t", origin: "PROD"}`. Throws {@link InvalidUrnError}
   * (a ValidationError) when the URN is of another entity type, has the wrong number of parts, or a part does not fit
   * its key field (an unknown enum symbol, a URN of the wrong type).
   */
  keyFromUrn(urn: Urn): JsonObject;
}

/** One aspect of an entity. */
export interface AspectSpec {
  /** Aspect name: `ownership`, `datasetKey`. */
  readonly name: string;
  /** Full name of the aspect record: `com.linkedin.common.Ownership`. */
  readonly recordName: string;
  /** `timeseries` aspects are not versioned (they go to the timeseries change log); the others are. */
  readonly kind: 'versioned' | 'timeseries';
  /** True for the entity's key aspect. */
  readonly isKey: boolean;
  /** The aspect record's schema, with its annotations (`Aspect`, `Searchable`, `Relationship`, `java`, …). */
  readonly schema: RecordSchema;
  /**
   * Validates a value with Pegasus JSON semantics and returns a normalized copy (unknown fields dropped, null optional
   * fields removed, defaults not filled in). Throws a ValidationError (an `AspectValidationError`) listing each
   * problem as `<path>: <reason>`.
   */
  validate(value: unknown): JsonObject;
}

interface RegistryEntry {
  readonly name: string;
  readonly doc: string | undefined;
  readonly keyAspect: string;
  readonly snapshot: string | undefined;
  readonly aspects: readonly string[];
}

/**
 * Builds the entity registry from the schema files (`readSchemas()` of `@strata/schemas`, called by the composition
 * root). Fails fast with a {@link SchemaError} when a schema does not compile or a name does not resolve, an aspect is
 * defined by two records or listed twice, the registry names an aspect that no schema defines, or an entity has no
 * key aspect.
 */
export function createEntityRegistry(files: SchemaFiles): EntityRegistry {
  const loaded = loadSchemaTree(files.aspects);
  const aspectRecords = new Map<string, RecordSchema>();
  for (const schema of loaded.named.values()) {
    if (schema.type !== 'record') continue;
    const aspectName = aspectNameOf(schema);
    if (aspectName === undefined) continue;
    const existing = aspectRecords.get(aspectName);
    if (existing !== undefined) {
      throw new SchemaError(
        `Aspect ${aspectName} is defined twice: by ${existing.name} (${loaded.fileOf.get(existing.name) ?? '?'}) and by ${schema.name} (${loaded.fileOf.get(schema.name) ?? '?'})`,
      );
    }
    aspectRecords.set(aspectName, schema);
  }

  const entries = parseRegistryFile(files.entityRegistry);
  const entities = new Map<string, EntitySpec>();
  const bySnapshot = new Map<string, EntitySpec>();
  const checkEntityUrn = (urn: Urn): void => {
    entities.get(urn.entityType)?.keyFromUrn(urn);
  };
  for (const entry of entries) {
    if (entities.has(entry.name)) throw new SchemaError(`Entity registry: entity ${entry.name} is listed twice`);
    const entity = createEntitySpec(entry, aspectRecords, checkEntityUrn);
    entities.set(entity.name, entity);
    if (entity.snapshotRecordName !== undefined) bySnapshot.set(entity.snapshotRecordName, entity);
  }
  const all = Object.freeze([...entities.values()]);
  return Object.freeze({
    entity: (name: string) => entities.get(name),
    entities: () => all,
    entityBySnapshot: (recordName: string) => bySnapshot.get(recordName),
  });
}

function createEntitySpec(
  entry: RegistryEntry,
  aspectRecords: ReadonlyMap<string, RecordSchema>,
  checkEntityUrn: (urn: Urn) => void,
): EntitySpec {
  const names = [entry.keyAspect, ...entry.aspects.filter((name) => name !== entry.keyAspect)];
  const seen = new Set<string>();
  for (const name of entry.aspects) {
    if (seen.has(name)) throw new SchemaError(`Entity registry: entity ${entry.name} lists aspect ${name} twice`);
    seen.add(name);
  }
  const aspects = names.map((name) => {
    const schema = aspectRecords.get(name);
    if (schema === undefined) {
      const role = name === entry.keyAspect ? 'key aspect' : 'aspect';
      throw new SchemaError(
        `Entity registry: entity ${entry.name} names ${role} ${name}, which no schema under aspects/ defines`,
      );
    }
    return createAspectSpec(name, schema, name === entry.keyAspect, checkEntityUrn);
  });
  const keyAspect = aspects[0];
  if (keyAspect === undefined) throw new SchemaError(`Entity registry: entity ${entry.name} has no key aspect`);
  if (keyAspect.kind === 'timeseries')
    throw new SchemaError(`Entity registry: key aspect ${keyAspect.name} is a timeseries aspect`);
  const byName = new Map(aspects.map((aspect) => [aspect.name, aspect]));
  const byRecord = new Map(aspects.map((aspect) => [aspect.recordName, aspect]));
  const keyFields = keyAspect.schema.fields;
  return Object.freeze({
    name: entry.name,
    doc: entry.doc,
    keyAspect,
    snapshotRecordName: entry.snapshot,
    aspects: Object.freeze(aspects),
    aspect: (name: string) => byName.get(name),
    aspectByRecordName: (recordName: string) => byRecord.get(recordName),
    keyFromUrn: (urn: Urn): JsonObject => {
      const text = urn.toString();
      if (urn.entityType !== entry.name) throw new InvalidUrnError(text, `not a ${entry.name} URN`);
      // A one-field key takes the whole id, even one that looks like a tuple: DataHub's documentation reads
      // `urn:li:glossaryTerm:(instruments,instruments.FinancialInstrument_v1)`, whose name is all of the id.
      const parts = keyFields.length === 1 ? [urn.id] : urn.parts;
      if (parts.length !== keyFields.length) {
        const expected = keyFields.map((field) => field.name).join(', ');
        const count = (n: number) => `${n} part${n === 1 ? '' : 's'}`;
        throw new InvalidUrnError(
          text,
          `a ${entry.name} URN has ${count(keyFields.length)} (${expected}), this one has ${count(parts.length)}`,
        );
      }
      const key: JsonObject = {};
      keyFields.forEach((field, index) => {
        key[field.name] = keyPartValue(field.type, parts[index] ?? '');
      });
      try {
        return keyAspect.validate(key);
      } catch (error) {
        if (!(error instanceof AspectValidationError)) throw error;
        const reasons = error.problems.map(({ path, reason }) => `${path.slice(1)}: ${reason}`);
        throw new InvalidUrnError(text, reasons.join('; '), { cause: error });
      }
    },
  });
}

/** A URN part as the value of its key field: text for strings and enums, a number or boolean where the field is one. */
function keyPartValue(type: AvroSchema, part: string): unknown {
  const target = type.type === 'union' ? (type.members.find((member) => member.type !== 'null') ?? type) : type;
  switch (target.type) {
    case 'int':
    case 'long':
    case 'float':
    case 'double':
      return /^-?\d+(\.\d+)?$/.test(part) ? Number(part) : part;
    case 'boolean':
      return part === 'true' ? true : part === 'false' ? false : part;
    default:
      return part;
  }
}

function createAspectSpec(
  name: string,
  schema: RecordSchema,
  isKey: boolean,
  checkEntityUrn: (urn: Urn) => void,
): AspectSpec {
  const aspect = schema.annotations['Aspect'] as Record<string, unknown>;
  return Object.freeze({
    name,
    recordName: schema.name,
    kind: aspect['type'] === 'timeseries' ? 'timeseries' : 'versioned',
    isKey,
    schema,
    validate: (value: unknown) => validateAspectValue(schema, value, { checkEntityUrn }),
  });
}

function aspectNameOf(schema: RecordSchema): string | undefined {
  const aspect = schema.annotations['Aspect'];
  if (aspect === undefined) return undefined;
  if (
    typeof aspect !== 'object' ||
    aspect === null ||
    typeof (aspect as Record<string, unknown>)['name'] !== 'string'
  ) {
    throw new SchemaError(`Record ${schema.name}: the Aspect annotation must be an object with a string name`);
  }
  return (aspect as Record<string, string>)['name'];
}

function parseRegistryFile(registry: unknown): RegistryEntry[] {
  const fail = (reason: string): never => {
    throw new SchemaError(`Entity registry (entity-registry.json): ${reason}`);
  };
  if (typeof registry !== 'object' || registry === null) return fail('expected an object with "entities"');
  const entities = (registry as Record<string, unknown>)['entities'];
  if (!Array.isArray(entities)) return fail('"entities" must be an array');
  return entities.map((entity: unknown, index): RegistryEntry => {
    if (typeof entity !== 'object' || entity === null) return fail(`entity ${index} must be an object`);
    const record = entity as Record<string, unknown>;
    const name = record['name'];
    if (typeof name !== 'string' || name === '') return fail(`entity ${index} needs a "name"`);
    const keyAspect = record['keyAspect'];
    if (typeof keyAspect !== 'string' || keyAspect === '')
      return fail(`entity ${name} has no key aspect ("keyAspect")`);
    const aspects = record['aspects'] ?? [];
    if (!Array.isArray(aspects) || !aspects.every((aspect): aspect is string => typeof aspect === 'string')) {
      return fail(`entity ${name}: "aspects" must be an array of aspect names`);
    }
    const snapshot = record['snapshot'];
    if (snapshot !== undefined && typeof snapshot !== 'string')
      return fail(`entity ${name}: "snapshot" must be a string`);
    const doc = record['doc'];
    return { name, doc: typeof doc === 'string' ? doc : undefined, keyAspect, snapshot, aspects };
  });
}
