/**
 * Turns DataHub's metadata model — its PDL files and its entity registry — into Strata's schema tree: one Avro schema
 * file per named type that an aspect of the registry reaches, and `entity-registry.json`. The mapping from Pegasus to
 * Avro is the one `schemas/README.md` documents; this module is its only implementation.
 */
import { parse as parseYaml } from 'yaml';
import type { Annotations, NamedDeclaration, PdlField, PdlFile, PdlType } from './pdl-parser';

export interface ImportedModel {
  /** Schema files by path under `schemas/aspects/`, e.g. `common/Ownership.avsc`. */
  readonly aspectFiles: ReadonlyMap<string, unknown>;
  readonly entityRegistry: { readonly entities: readonly RegistryEntity[] };
}

export interface RegistryEntity {
  readonly name: string;
  readonly category?: string;
  readonly keyAspect: string;
  readonly snapshot?: string;
  readonly aspects: readonly string[];
}

export class ModelImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelImportError';
  }
}

/** The annotation a record with member aliases carries once it is an Avro record: exactly one field is set. */
export const ALIASED_UNION_ANNOTATION = 'unionWithAliases';

/** Annotations of a typeref that carry over to the type it names; the rest (validators' settings, prose) do not. */
const TYPEREF_ANNOTATIONS_KEPT = ['java'];

type AvroType = string | readonly AvroType[] | Record<string, unknown>;

export function importModel(files: readonly PdlFile[], registryYaml: string): ImportedModel {
  const declarations = new Map<string, NamedDeclaration>();
  for (const file of files) {
    for (const declaration of file.declarations) {
      if (declarations.has(declaration.name)) throw new ModelImportError(`${declaration.name} is declared twice`);
      declarations.set(declaration.name, declaration);
    }
  }
  const aspects = new Map<string, string>();
  const snapshots = new Map<string, string>();
  for (const declaration of declarations.values()) {
    if (declaration.kind !== 'record') continue;
    const aspectName = objectAt(declaration.annotations, 'Aspect')?.['name'];
    if (typeof aspectName === 'string') {
      const existing = aspects.get(aspectName);
      if (existing !== undefined)
        throw new ModelImportError(`Aspect ${aspectName} is declared by ${existing} and ${declaration.name}`);
      aspects.set(aspectName, declaration.name);
    }
    const entityName = objectAt(declaration.annotations, 'Entity')?.['name'];
    if (typeof entityName === 'string' && declaration.name.endsWith('Snapshot'))
      snapshots.set(entityName, declaration.name);
  }

  const entities = registryEntities(registryYaml).map((entity): RegistryEntity => {
    for (const aspect of [entity.keyAspect, ...entity.aspects]) {
      if (!aspects.has(aspect))
        throw new ModelImportError(`Entity ${entity.name} lists aspect ${aspect}, which no record declares`);
    }
    const snapshot = snapshots.get(entity.name);
    return { ...entity, ...(snapshot === undefined ? {} : { snapshot }) };
  });

  const converter = new AvroConverter(declarations);
  for (const entity of entities) {
    for (const aspect of [entity.keyAspect, ...entity.aspects]) converter.require(aspects.get(aspect) as string);
  }
  return { aspectFiles: converter.files(), entityRegistry: { entities } };
}

function registryEntities(yamlText: string): RegistryEntity[] {
  const document = parseYaml(yamlText) as { entities?: unknown };
  if (!Array.isArray(document.entities)) throw new ModelImportError('The entity registry has no "entities" list');
  return document.entities.map((raw: Record<string, unknown>): RegistryEntity => {
    const { name, keyAspect, category } = raw;
    if (typeof name !== 'string' || typeof keyAspect !== 'string')
      throw new ModelImportError(`An entity of the registry lacks a name or key aspect: ${JSON.stringify(raw)}`);
    const aspects = Array.isArray(raw['aspects']) ? (raw['aspects'] as unknown[]).map(String) : [];
    const unique = [...new Set(aspects.filter((aspect) => aspect !== keyAspect))];
    return { name, ...(typeof category === 'string' ? { category } : {}), keyAspect, aspects: unique };
  });
}

class AvroConverter {
  private readonly converted = new Map<string, unknown>();
  private readonly pending: string[] = [];

  constructor(private readonly declarations: ReadonlyMap<string, NamedDeclaration>) {}

  require(name: string): void {
    if (this.converted.has(name) || this.pending.includes(name)) return;
    this.pending.push(name);
  }

  files(): Map<string, unknown> {
    for (let name = this.pending.shift(); name !== undefined; name = this.pending.shift()) {
      if (this.converted.has(name)) continue;
      this.converted.set(name, this.namedSchema(this.declaration(name)));
    }
    const files = new Map<string, unknown>();
    for (const name of [...this.converted.keys()].sort()) files.set(pathOf(name), this.converted.get(name));
    return files;
  }

  private declaration(name: string): NamedDeclaration {
    const declaration = this.declarations.get(name);
    if (declaration === undefined) throw new ModelImportError(`No file declares ${name}`);
    return declaration;
  }

  private namedSchema(declaration: NamedDeclaration): unknown {
    const { namespace, name } = splitName(declaration.name);
    const head = { name, namespace };
    switch (declaration.kind) {
      case 'record':
        return {
          type: 'record',
          ...head,
          ...declaration.annotations,
          fields: this.recordFields(declaration).map((field) => this.field(field, declaration.name)),
        };
      case 'enum':
        return { type: 'enum', ...head, ...declaration.annotations, symbols: declaration.symbols };
      case 'fixed':
        return { type: 'fixed', ...head, size: declaration.size };
      case 'typeref': {
        // Only a typeref to a union with member aliases is a named type of its own (see `type`).
        const target = declaration.target;
        if (target.kind !== 'union') throw new ModelImportError(`${declaration.name} is not a named Avro type`);
        return {
          type: 'record',
          ...head,
          [ALIASED_UNION_ANNOTATION]: true,
          fields: target.members.map((member) => ({
            name: member.alias,
            type: optional(this.type(member.type, `${declaration.name}.${member.alias ?? ''}`)),
            default: null,
          })),
        };
      }
    }
  }

  /** A record's fields after those of the records it includes, in order, as Pegasus flattens them. */
  private recordFields(declaration: NamedDeclaration & { kind: 'record' }): PdlField[] {
    const fields: PdlField[] = [];
    for (const included of declaration.includes) {
      const target = this.resolveTyperefs(included).type;
      const record = target.kind === 'named' ? target.declaration : undefined;
      const resolved = target.kind === 'reference' ? this.declaration(target.name) : record;
      if (resolved?.kind !== 'record') throw new ModelImportError(`${declaration.name} includes a non-record`);
      fields.push(...this.recordFields(resolved));
    }
    const names = new Set(fields.map((field) => field.name));
    for (const field of declaration.fields) {
      if (names.has(field.name)) throw new ModelImportError(`${declaration.name}.${field.name} is declared twice`);
      fields.push(field);
    }
    return fields;
  }

  private field(field: PdlField, where: string): Record<string, unknown> {
    const path = `${where}.${field.name}`;
    const type = this.type(field.type, path);
    const converted: Record<string, unknown> = { name: field.name };
    if (field.optional) {
      // An optional field is absent or set; a Pegasus default on it is what readers assume, not part of the value.
      converted['type'] = optional(type);
      converted['default'] = null;
    } else if (field.hasDefault) {
      const [ordered, value] = withDefault(type, field.defaultValue, path);
      converted['type'] = ordered;
      converted['default'] = value;
    } else {
      converted['type'] = type;
    }
    return { ...converted, ...field.annotations };
  }

  private type(pdl: PdlType, where: string): AvroType {
    const { type, annotations } = this.resolveTyperefs(pdl);
    const annotated = (avro: Record<string, unknown>): AvroType => ({ ...avro, ...annotations });
    switch (type.kind) {
      case 'primitive':
        return Object.keys(annotations).length === 0 ? type.name : annotated({ type: type.name });
      case 'array':
        return annotated({ type: 'array', items: this.type(type.items, `${where}[]`) });
      case 'map':
        return annotated({ type: 'map', values: this.type(type.values, `${where}{}`) });
      case 'union':
        return this.union(type.members, where, undefined);
      case 'named':
      case 'reference': {
        const declaration = type.kind === 'named' ? type.declaration : this.declaration(type.name);
        if (declaration.kind === 'typeref') return this.union(this.unionOf(declaration), where, declaration.name);
        this.require(declaration.name);
        return declaration.name;
      }
    }
  }

  private unionOf(typeref: NamedDeclaration & { kind: 'typeref' }) {
    if (typeref.target.kind !== 'union') throw new ModelImportError(`${typeref.name} does not resolve`);
    return typeref.target.members;
  }

  private union(members: readonly { alias: string | undefined; type: PdlType }[], where: string, name?: string) {
    if (members.some((member) => member.alias !== undefined)) {
      if (name === undefined)
        throw new ModelImportError(`${where}: a union with member aliases must be a typeref, to name its record`);
      this.require(name);
      return name;
    }
    return members.map((member) => {
      const converted = this.type(member.type, `${where}|`);
      if (isUnion(converted)) throw new ModelImportError(`${where}: a union directly inside a union`);
      return converted;
    });
  }

  /** Follows typerefs down to the type they name, gathering the annotations that carry over. */
  private resolveTyperefs(pdl: PdlType): { type: PdlType; annotations: Annotations } {
    let type = pdl;
    const annotations: Annotations = {};
    for (;;) {
      const declaration =
        type.kind === 'named' ? type.declaration : type.kind === 'reference' ? this.declaration(type.name) : undefined;
      if (declaration?.kind !== 'typeref' || declaration.target.kind === 'union') return { type, annotations };
      for (const key of TYPEREF_ANNOTATIONS_KEPT) {
        if (declaration.annotations[key] !== undefined && annotations[key] === undefined)
          annotations[key] = declaration.annotations[key];
      }
      type = declaration.target;
    }
  }
}

function isUnion(type: AvroType): type is readonly AvroType[] {
  return Array.isArray(type);
}

function optional(type: AvroType): AvroType {
  if (!isUnion(type)) return ['null', type];
  return ['null', ...type.filter((member) => member !== 'null')];
}

/**
 * A field's type and default as Avro wants them: the default of a union names its member in Pegasus
 * (`{"string": "x"}`), and Avro takes the member first and the bare value.
 */
function withDefault(type: AvroType, value: unknown, where: string): [AvroType, unknown] {
  if (!isUnion(type)) return [type, value];
  if (value === null) return [optional(type), null];
  const entries = typeof value === 'object' ? Object.entries(value) : [];
  const [memberKey, memberValue] = entries.length === 1 ? (entries[0] as [string, unknown]) : [];
  const member = type.find((candidate) => memberName(candidate) === memberKey);
  if (member === undefined) throw new ModelImportError(`${where}: a default that names no member of its union`);
  return [[member, ...type.filter((candidate) => candidate !== member)], memberValue];
}

function memberName(type: AvroType): string {
  if (typeof type === 'string') return type;
  if (isUnion(type)) return 'union';
  return String(type['type']);
}

function objectAt(annotations: Annotations, key: string): Record<string, unknown> | undefined {
  const value = annotations[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function splitName(fullName: string): { namespace: string; name: string } {
  const dot = fullName.lastIndexOf('.');
  return { namespace: fullName.slice(0, Math.max(dot, 0)), name: fullName.slice(dot + 1) };
}

/** `com.linkedin.common.Ownership` → `common/Ownership.avsc`; names outside `com.linkedin` keep every segment. */
function pathOf(fullName: string): string {
  const relative = fullName.startsWith('com.linkedin.') ? fullName.slice('com.linkedin.'.length) : fullName;
  return `${relative.split('.').join('/')}.avsc`;
}
