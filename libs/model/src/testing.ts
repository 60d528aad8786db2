/**
 * Test helpers for suites that need the real schemas. Behind the separate `@strata/model/testing` entry, so that
 * production code never reads schema files through the model library.
 */
// Test code may read the schema files; the model's own code never does (composition roots call readSchemas() and pass
// the result in).
import { readSchemas, type SchemaFiles } from '@strata/schemas';
import type { JsonObject } from './aspect-validator';
import { createEntityRegistry, type EntityRegistry } from './entity-registry';
import {
  ANY_ENTITY_TYPE,
  javaClassOf,
  unionMemberKey,
  urnEntityTypeOfClass,
  type Annotations,
  type AvroSchema,
  type FieldSchema,
  type RecordSchema,
} from './record-schema';
import { formatUrn } from './urn';

let files: SchemaFiles | undefined;
let registry: EntityRegistry | undefined;

/** The real schema files, `readSchemas()` of `@strata/schemas` (read once per test process). */
export function testSchemaFiles(): SchemaFiles {
  files ??= readSchemas();
  return files;
}

/** The entity registry built from the real `schemas/` (built once per test process, then memoized). */
export function testEntityRegistry(): EntityRegistry {
  registry ??= createEntityRegistry(testSchemaFiles());
  return registry;
}

/**
 * A URN of the entity type that its key aspect accepts, built from the key's sample values (`urn:li:dataJob:(urn:li:…,
 * sample,…)`); an unknown type gets a one-part URN.
 */
export function sampleUrn(registry: EntityRegistry, entityType: string): string {
  const entity = registry.entity(entityType);
  if (entity === undefined) return formatUrn(entityType === ANY_ENTITY_TYPE ? 'corpuser' : entityType, ['sample']);
  // Every key field, optional ones included (DataHub's container key has only an optional guid).
  const parts = entity.keyAspect.schema.fields.map((field) =>
    String(sampleOf(registry, present(field), field.annotations, new Set([entity.keyAspect.schema.name]))),
  );
  return formatUrn(entity.name, parts);
}

/**
 * The smallest value a record schema accepts: every required field with a sample of its type, optional ones left out.
 * URN fields get a URN of the type their class or `UrnValidation` names.
 */
export function sampleAspectValue(registry: EntityRegistry, schema: RecordSchema): JsonObject {
  return sampleOf(registry, schema, {}, new Set()) as JsonObject;
}

/** A value of any schema, made as {@link sampleAspectValue} makes aspect values (a field's annotations aside). */
export function sampleValue(registry: EntityRegistry, schema: AvroSchema): unknown {
  return sampleOf(registry, schema, {}, new Set());
}

function sampleOf(
  registry: EntityRegistry,
  schema: AvroSchema,
  annotations: Annotations,
  enclosing: ReadonlySet<string>,
): unknown {
  switch (schema.type) {
    case 'record': {
      const value: JsonObject = {};
      const inside = new Set([...enclosing, schema.name]);
      const fields =
        schema.annotations['unionWithAliases'] === true ? schema.fields.slice(0, 1) : schema.fields.filter(required);
      for (const field of fields) {
        value[field.name] = sampleOf(registry, present(field), field.annotations, inside);
      }
      return value;
    }
    case 'string': {
      const urnValidation = annotations['UrnValidation'] as { entityTypes?: string[] } | undefined;
      const javaClass = javaClassOf(schema.annotations) ?? javaClassOf(annotations);
      const entityType =
        urnValidation?.entityTypes?.[0] ?? (javaClass === undefined ? undefined : urnEntityTypeOfClass(javaClass));
      return entityType === undefined ? 'sample' : sampleUrn(registry, entityType);
    }
    case 'enum':
      return schema.symbols[0];
    case 'int':
    case 'long':
      return 1;
    case 'float':
    case 'double':
      return 1.5;
    case 'boolean':
      return true;
    case 'bytes':
      return 'sample';
    case 'fixed':
      return 'x'.repeat(schema.size);
    case 'array':
      return [];
    case 'map':
      return {};
    case 'union': {
      const member = nonNull(schema);
      return { [unionMemberKey(member)]: sampleOf(registry, member, {}, enclosing) };
    }
    case 'null':
      return null;
  }
}

function required(field: FieldSchema): boolean {
  return !field.optional && !field.hasDefault;
}

/** The type of a field's value when it is there: an optional field's non-null member. */
function present(field: FieldSchema): AvroSchema {
  return field.type.type === 'union' && field.optional ? nonNull(field.type) : field.type;
}

function nonNull(union: AvroSchema & { type: 'union' }): AvroSchema {
  return union.members.find((member) => member.type !== 'null') as AvroSchema;
}
