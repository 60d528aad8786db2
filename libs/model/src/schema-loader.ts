import { Type } from 'avsc';
import type { SchemaFile } from '@strata/schemas';
import { SchemaError } from './schema-error';
import type {
  Annotations,
  AvroSchema,
  EnumSchema,
  FieldSchema,
  FixedSchema,
  PrimitiveTypeName,
  RecordSchema,
} from './record-schema';

/** The result of loading one schema tree: every named type, and the file that defines each. */
export interface LoadedSchemas {
  /** Named types by full name. */
  readonly named: ReadonlyMap<string, RecordSchema | EnumSchema | FixedSchema>;
  /** The file that defines each named type, by full name. */
  readonly fileOf: ReadonlyMap<string, string>;
  /** The compiled `avsc` type of each named type, by full name (for schema resolution between versions). */
  readonly types: Readonly<Record<string, Type>>;
}

type RawObject = Record<string, unknown>;

const PRIMITIVES: ReadonlySet<string> = new Set([
  'null',
  'boolean',
  'int',
  'long',
  'float',
  'double',
  'bytes',
  'string',
]);
const FIELD_KEYS = new Set(['name', 'type', 'doc', 'default', 'order', 'aliases']);
const NAMED_KEYS = new Set(['type', 'name', 'namespace', 'doc', 'aliases', 'fields', 'symbols', 'size', 'default']);
const CONTAINER_KEYS = new Set(['type', 'items', 'values']);

/**
 * Loads a tree of `.avsc` files that refer to each other's named types by full name, in any order: each file is
 * compiled by `avsc` against the names already defined, and files that name a type not yet defined are retried
 * after the others. Throws a {@link SchemaError} naming the file for an invalid schema, a type defined twice, or a
 * reference that no file defines.
 */
export function loadSchemaTree(files: readonly SchemaFile[]): LoadedSchemas {
  let registry: Record<string, Type> = {};
  const rawDefinitions = new Map<string, RawObject>();
  const fileOf = new Map<string, string>();
  let pending = [...files];
  while (pending.length > 0) {
    const unresolved: { file: SchemaFile; missing: string }[] = [];
    for (const file of pending) {
      // A failed attempt may have registered some nested names; compile against a copy so a retry starts clean.
      const attempt = { ...registry };
      try {
        Type.forSchema(file.schema as never, { registry: attempt });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const missing = /^undefined type name: (\S+)/.exec(message)?.[1];
        if (missing !== undefined && !(missing in registry)) {
          unresolved.push({ file, missing });
          continue;
        }
        throw new SchemaError(`Invalid schema ${file.file}: ${message}`, { cause: error });
      }
      for (const [name, definition] of collectDefinitions(file.schema, '')) {
        if (fileOf.has(name)) {
          throw new SchemaError(
            `Invalid schema ${file.file}: type ${name} is already defined in ${fileOf.get(name) ?? '?'}`,
          );
        }
        rawDefinitions.set(name, definition);
        fileOf.set(name, file.file);
      }
      registry = attempt;
    }
    if (unresolved.length === pending.length) {
      const lines = unresolved.map(({ file, missing }) => `${file.file}: undefined type name ${missing}`);
      throw new SchemaError(`Cannot resolve schema references:\n${lines.join('\n')}`);
    }
    pending = unresolved.map(({ file }) => file);
  }
  return { named: buildViews(registry, rawDefinitions), fileOf, types: registry };
}

/** The full names of the named types a raw schema defines (Avro namespace rules). */
export function namedTypesOf(schema: unknown): string[] {
  return collectDefinitions(schema, '').map(([name]) => name);
}

/** Every named type defined inside a raw schema, with its full name (Avro namespace rules). */
function collectDefinitions(schema: unknown, namespace: string): [string, RawObject][] {
  const found: [string, RawObject][] = [];
  const walk = (node: unknown, enclosing: string): void => {
    if (Array.isArray(node)) {
      for (const member of node) walk(member, enclosing);
      return;
    }
    if (!isObject(node)) return;
    const type = node['type'];
    if (
      (type === 'record' || type === 'error' || type === 'enum' || type === 'fixed') &&
      typeof node['name'] === 'string'
    ) {
      const fullName = qualify(node['name'], typeof node['namespace'] === 'string' ? node['namespace'] : enclosing);
      found.push([fullName, node]);
      const own = fullName.includes('.') ? fullName.slice(0, fullName.lastIndexOf('.')) : '';
      if (Array.isArray(node['fields'])) {
        for (const field of node['fields']) if (isObject(field)) walk(field['type'], own);
      }
      return;
    }
    if (type === 'array') walk(node['items'], enclosing);
    else if (type === 'map') walk(node['values'], enclosing);
    else if (typeof type === 'object') walk(type, enclosing);
  };
  walk(schema, namespace);
  return found;
}

function qualify(name: string, namespace: string): string {
  return name.includes('.') || namespace === '' ? name : `${namespace}.${name}`;
}

/** Builds the read-only views of every named type, pairing avsc's resolved types with the raw JSON's annotations. */
function buildViews(
  registry: Readonly<Record<string, Type>>,
  rawDefinitions: ReadonlyMap<string, RawObject>,
): Map<string, RecordSchema | EnumSchema | FixedSchema> {
  const views = new Map<string, RecordSchema | EnumSchema | FixedSchema>();

  const named = (type: Type): RecordSchema | EnumSchema | FixedSchema => {
    const name = type.name ?? '';
    const existing = views.get(name);
    if (existing !== undefined) return existing;
    const raw = rawDefinitions.get(name) ?? {};
    const doc = typeof raw['doc'] === 'string' ? raw['doc'] : type.doc;
    const annotations = extraAttributes(raw, NAMED_KEYS);
    if (type.typeName === 'enum') {
      const symbols = Object.freeze([...(type as unknown as { symbols: string[] }).symbols]);
      const view: EnumSchema = Object.freeze({ type: 'enum', name, doc, symbols, annotations });
      views.set(name, view);
      return view;
    }
    if (type.typeName === 'fixed') {
      const view: FixedSchema = Object.freeze({
        type: 'fixed',
        name,
        size: (type as unknown as { size: number }).size,
        annotations,
      });
      views.set(name, view);
      return view;
    }
    // A record: registered before its fields are built, so that recursive references find it.
    const fields: FieldSchema[] = [];
    const byName = new Map<string, FieldSchema>();
    const view: RecordSchema = Object.freeze({
      type: 'record',
      name,
      doc,
      fields,
      annotations,
      field: (fieldName: string) => byName.get(fieldName),
    });
    views.set(name, view);
    const rawFields = Array.isArray(raw['fields']) ? (raw['fields'] as unknown[]) : [];
    for (const field of (type as unknown as { fields: { name: string; type: Type; doc?: string }[] }).fields) {
      const rawField = rawFields.find((candidate) => isObject(candidate) && candidate['name'] === field.name);
      const rawFieldObject = isObject(rawField) ? rawField : {};
      const fieldType = view_(field.type, rawFieldObject['type']);
      const hasDefault = 'default' in rawFieldObject;
      const fieldView: FieldSchema = Object.freeze({
        name: field.name,
        type: fieldType,
        doc: typeof rawFieldObject['doc'] === 'string' ? rawFieldObject['doc'] : field.doc,
        optional: fieldType.type === 'union' && fieldType.members.some((member) => member.type === 'null'),
        hasDefault,
        defaultValue: hasDefault ? rawFieldObject['default'] : undefined,
        annotations: extraAttributes(rawFieldObject, FIELD_KEYS),
      });
      fields.push(fieldView);
      byName.set(field.name, fieldView);
    }
    Object.freeze(fields);
    return view;
  };

  const view_ = (type: Type, raw: unknown): AvroSchema => {
    if (type.name !== undefined) return named(type);
    // `{"type": {...}}` and `{"type": [...]}` wrap a schema; the wrapper's extra attributes are ignored.
    if (isObject(raw) && typeof raw['type'] === 'object' && raw['type'] !== null) return view_(type, raw['type']);
    const typeName = type.typeName;
    if (typeName.startsWith('union')) {
      const members = (type as unknown as { types: Type[] }).types;
      const rawMembers = Array.isArray(raw) ? raw : [];
      return Object.freeze({
        type: 'union',
        members: Object.freeze(members.map((member, index) => view_(member, rawMembers[index]))),
      });
    }
    const rawObject = isObject(raw) ? raw : {};
    const annotations = extraAttributes(rawObject, CONTAINER_KEYS);
    if (typeName === 'array') {
      const items = view_((type as unknown as { itemsType: Type }).itemsType, rawObject['items']);
      return Object.freeze({ type: 'array', items, annotations });
    }
    if (typeName === 'map') {
      const values = view_((type as unknown as { valuesType: Type }).valuesType, rawObject['values']);
      return Object.freeze({ type: 'map', values, annotations });
    }
    if (typeName.startsWith('logical:'))
      return view_((type as unknown as { underlyingType: Type }).underlyingType, raw);
    if (!PRIMITIVES.has(typeName)) throw new SchemaError(`Unsupported Avro type ${typeName}`);
    return Object.freeze({ type: typeName as PrimitiveTypeName, annotations });
  };

  for (const type of Object.values(registry)) {
    if (type.name !== undefined && rawDefinitions.has(type.name)) named(type);
  }
  return views;
}

function extraAttributes(raw: RawObject, standard: ReadonlySet<string>): Annotations {
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) if (!standard.has(key)) extra[key] = value;
  return Object.freeze(extra);
}

function isObject(value: unknown): value is RawObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
