import type { CustomModelFiles, SchemaFile, SchemaFiles } from '@strata/schemas';
import { createEntityRegistry } from './entity-registry';
import { SchemaError } from './schema-error';
import { loadSchemaTree, namedTypesOf, type LoadedSchemas } from './schema-loader';
import { relationshipFields, searchableFields } from './search-annotations';

interface RegistryEntryJson {
  readonly name: string;
  readonly keyAspect?: string;
  readonly aspects?: readonly string[];
  readonly [other: string]: unknown;
}

/**
 * The built-in model with an operator's own models added (`docs/custom-models.md`): their schema files join the
 * aspect tree, a file may redefine a built-in type only as a compatible evolution of it (Avro schema resolution: every
 * stored value of the built-in type stays readable, and an aspect keeps its name), and their registry adds entity
 * types or aspects of existing ones. Everything is checked as the services will use it — the registry builds, every
 * `Searchable` and `Relationship` annotation resolves — so a bad model stops the start here, with a SchemaError that
 * names the directory and the fault.
 */
export function withCustomModels(builtIn: SchemaFiles, custom: CustomModelFiles): SchemaFiles {
  const fail = (reason: string, cause?: unknown): never => {
    throw new SchemaError(`Custom models in ${custom.directory}: ${reason}`, { cause });
  };
  const customFiles: SchemaFile[] = custom.aspects.map((file) => ({
    file: `custom/${file.file}`,
    schema: file.schema,
  }));
  const builtInFileOf = new Map<string, SchemaFile>();
  for (const file of builtIn.aspects) for (const name of namedTypesOf(file.schema)) builtInFileOf.set(name, file);

  const replaced = new Map<string, SchemaFile>();
  for (const file of customFiles) {
    for (const name of namedTypesOf(file.schema)) {
      const original = builtInFileOf.get(name);
      if (original === undefined) continue;
      if (namedTypesOf(original.schema).length !== 1) {
        fail(`${file.file} redefines ${name}, which ${original.file} defines together with other types`);
      }
      replaced.set(name, original);
    }
  }
  const replacedFiles = new Set(replaced.values());
  const merged: SchemaFiles = {
    entityRegistry: mergeRegistries(builtIn.entityRegistry, custom.entityRegistry, fail),
    aspects: [...builtIn.aspects.filter((file) => !replacedFiles.has(file)), ...customFiles],
    events: builtIn.events,
  };

  const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
  if (replaced.size > 0) {
    let after;
    try {
      after = loadSchemaTree(merged.aspects);
    } catch (error) {
      return fail(message(error), error);
    }
    checkCompatible(loadSchemaTree(builtIn.aspects), after, [...replaced.keys()], fail);
  }
  let registry;
  try {
    registry = createEntityRegistry(merged);
  } catch (error) {
    return fail(message(error), error);
  }
  for (const entity of registry.entities()) {
    try {
      searchableFields(entity);
      relationshipFields(entity);
    } catch (error) {
      fail(message(error), error);
    }
  }
  return merged;
}

/** Every redefined type must read what the built-in one wrote, and an aspect keeps its name. */
function checkCompatible(
  before: LoadedSchemas,
  after: LoadedSchemas,
  names: readonly string[],
  fail: (reason: string, cause?: unknown) => never,
): void {
  for (const name of names) {
    const writer = before.types[name];
    const reader = after.types[name];
    if (writer === undefined || reader === undefined) continue;
    try {
      reader.createResolver(writer);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      fail(`${after.fileOf.get(name) ?? name} changes ${name} incompatibly: ${reason}`, error);
    }
    const aspectName = (schema: unknown) =>
      (schema as { annotations?: Record<string, { name?: unknown } | undefined> } | undefined)?.annotations?.['Aspect']
        ?.name;
    const was = aspectName(before.named.get(name));
    const is = aspectName(after.named.get(name));
    if (was !== is) {
      fail(`${after.fileOf.get(name) ?? name} changes the aspect name of ${name} from ${String(was)} to ${String(is)}`);
    }
  }
}

/** The built-in registry with the custom one applied: new entities appended, aspects added to existing ones. */
function mergeRegistries(
  builtIn: unknown,
  custom: unknown,
  fail: (reason: string) => never,
): { entities: RegistryEntryJson[] } {
  const base = (builtIn as { entities: RegistryEntryJson[] }).entities.map((entry) => ({ ...entry }));
  if (custom === undefined) return { entities: base };
  const entries =
    typeof custom === 'object' && custom !== null ? (custom as { entities?: unknown }).entities : undefined;
  if (!Array.isArray(entries)) return fail('entity-registry.json must be an object with an "entities" array');
  const byName = new Map(base.map((entry) => [entry.name, entry]));
  for (const [index, raw] of entries.entries()) {
    const entry = raw as RegistryEntryJson | null;
    if (typeof entry?.name !== 'string' || entry.name === '') {
      return fail(`entity-registry.json: entity ${index} needs a "name"`);
    }
    const aspects = entry.aspects ?? [];
    if (!Array.isArray(aspects) || !aspects.every((aspect) => typeof aspect === 'string')) {
      return fail(`entity-registry.json: entity ${entry.name}: "aspects" must be an array of aspect names`);
    }
    const existing = byName.get(entry.name);
    if (existing === undefined) {
      const created = { ...entry, aspects: [...aspects] };
      base.push(created);
      byName.set(entry.name, created);
      continue;
    }
    if (entry.keyAspect !== undefined && entry.keyAspect !== existing.keyAspect) {
      fail(`entity-registry.json: entity ${entry.name} already has key aspect ${String(existing.keyAspect)}`);
    }
    const known = new Set(existing.aspects ?? []);
    existing.aspects = [...(existing.aspects ?? []), ...aspects.filter((aspect) => !known.has(aspect))];
  }
  return { entities: base };
}
