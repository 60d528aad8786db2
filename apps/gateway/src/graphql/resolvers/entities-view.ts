/**
 * An entity as its GraphQL fields see it: the latest aspects the request's entity loader read (batched, the caller's
 * READ checked), each value with its schema's defaults filled in the way DataHub's generated records answer them,
 * and the key. Also the per-request batched reads some fields need beyond the loader (whether entities exist, whether
 * a user has a password), each made once per request for every entity asking.
 */
import DataLoader from 'dataloader';
import { parseUrn, unionMemberKey, type AvroSchema, type EntityRegistry } from '@strata/model';
import type { GraphqlContext, LoadedEntity } from '../context';
import { isEntityRef, type EntityRef } from '../schema';
import { existsIn, recordOf, type Value } from './entities-values';

/** An entity a resolver hands on; `preloaded` when its aspects were read otherwise (a versioned read). */
export interface EntitySource extends EntityRef {
  readonly preloaded?: LoadedEntity;
}

/** One entity, read. */
export interface EntityView {
  readonly urn: string;
  readonly entityName: string;
  readonly loaded: LoadedEntity;
  readonly context: GraphqlContext;
  /** The value of an aspect with its schema's defaults filled in; undefined when the entity has none. */
  aspect(name: string): Value | undefined;
  /** The version the read answered for an aspect (0 for the latest). */
  versionOf(name: string): number | null;
  /** The key's fields (`{platform, name, origin}` of a dataset). */
  key(): Value;
  /** Whether anything was ever stored for the entity. */
  exists(): boolean;
}

const views = new WeakMap<LoadedEntity, EntityView>();

/**
 * The view of the entity `source` stands for; null when `source` is no entity or the read answers nothing for it (a
 * URN of no known entity type). A read the caller may not make rejects, so that the field fails with its 403.
 */
export async function viewOf(source: unknown, context: GraphqlContext): Promise<EntityView | null> {
  if (!isEntityRef(source)) return null;
  const loaded = (source as EntitySource).preloaded ?? (await context.entities.load(source.urn));
  if (loaded === null) return null;
  const known = views.get(loaded);
  if (known !== undefined) return known;
  const view = createView(source, loaded, context);
  views.set(loaded, view);
  return view;
}

function createView(source: EntityRef, loaded: LoadedEntity, context: GraphqlContext): EntityView {
  const spec = context.registry.entity(source.entityName);
  const filled = new Map<string, Value | undefined>();
  const aspect = (name: string): Value | undefined => {
    if (filled.has(name)) return filled.get(name);
    const stored = recordOf(loaded.aspects[name]?.value);
    const schema = spec?.aspect(name)?.schema;
    const value =
      stored === undefined ? undefined : schema === undefined ? stored : recordOf(withDefaults(schema, stored));
    filled.set(name, value);
    return value;
  };
  const keyName = spec?.keyAspect.name;
  return {
    urn: source.urn,
    entityName: source.entityName,
    loaded,
    context,
    aspect,
    versionOf: (name) => loaded.aspects[name]?.version ?? null,
    key: () => (keyName === undefined ? undefined : aspect(keyName)) ?? keyFromUrn(context.registry, source.urn),
    exists: () => keyName !== undefined && existsIn(loaded, keyName),
  };
}

/** The key an URN stands for (empty for a URN of no known entity type). */
function keyFromUrn(registry: EntityRegistry, urn: string): Value {
  try {
    const parsed = parseUrn(urn);
    return registry.entity(parsed.entityType)?.keyFromUrn(parsed) ?? {};
  } catch {
    return {};
  }
}

/**
 * A value in Pegasus JSON with the defaults of its schema filled in where it leaves a field out, as DataHub's records
 * answer a field they do not hold (`removed` false, `customProperties` empty, `lastModified` at time 0). A defaulted
 * field of a real union is left out: its default's form is Avro's, not Pegasus JSON's.
 */
export function withDefaults(schema: AvroSchema, value: unknown): unknown {
  switch (schema.type) {
    case 'record': {
      const record = recordOf(value);
      if (record === undefined) return value;
      const result: Record<string, unknown> = { ...record };
      for (const field of schema.fields) {
        const present = record[field.name];
        if (present !== undefined && present !== null) {
          result[field.name] = withDefaults(field.type, present);
        } else if (field.hasDefault && field.defaultValue !== null && !isRealUnion(field.type)) {
          result[field.name] = withDefaults(field.type, structuredClone(field.defaultValue));
        }
      }
      return result;
    }
    case 'array':
      return Array.isArray(value) ? value.map((item) => withDefaults(schema.items, item)) : value;
    case 'map': {
      const map = recordOf(value);
      if (map === undefined) return value;
      return Object.fromEntries(Object.entries(map).map(([key, item]) => [key, withDefaults(schema.values, item)]));
    }
    case 'union': {
      const present = schema.members.filter((member) => member.type !== 'null');
      if (present.length === 1 && present[0] !== undefined) return withDefaults(present[0], value);
      const wrapped = recordOf(value);
      const [memberKey, member] = Object.entries(wrapped ?? {})[0] ?? [];
      const memberSchema = schema.members.find((candidate) => unionMemberKey(candidate) === memberKey);
      if (memberKey === undefined || memberSchema === undefined) return value;
      return { [memberKey]: withDefaults(memberSchema, member) };
    }
    default:
      return value;
  }
}

function isRealUnion(schema: AvroSchema): boolean {
  return schema.type === 'union' && schema.members.filter((member) => member.type !== 'null').length > 1;
}

/** What the store holds of an entity, read as the gateway: whether its key was written, whether it is soft-deleted. */
export interface Presence {
  readonly exists: boolean;
  readonly removed: boolean;
}

/** The most URNs one presence read names (the writer's limit for a named read). */
const PRESENCE_BATCH = 1000;

const presenceLoaders = new WeakMap<GraphqlContext, DataLoader<string, Presence>>();

/**
 * Whether entities exist (their key was ever written) and whether they are soft-deleted, read as the gateway and
 * batched per request: DataHub checks existence unguarded where it filters lineage, answers `checkForExistence` or
 * drops a domain that is gone, and so does this. A URN of no known entity type does not exist.
 */
export function presenceOf(context: GraphqlContext, urn: string): Promise<Presence> {
  let loader = presenceLoaders.get(context);
  if (loader === undefined) {
    loader = new DataLoader((urns) => readPresence(context, urns), { maxBatchSize: PRESENCE_BATCH });
    presenceLoaders.set(context, loader);
  }
  return loader.load(urn);
}

async function readPresence(context: GraphqlContext, urns: readonly string[]): Promise<Presence[]> {
  const byKeyAspect = new Map<string, string[]>();
  for (const urn of urns) {
    const keyAspect = keyAspectOf(context.registry, urn);
    if (keyAspect !== undefined) byKeyAspect.set(keyAspect, [...(byKeyAspect.get(keyAspect) ?? []), urn]);
  }
  const found = new Map<string, Presence>();
  for (const [keyAspect, ofType] of byKeyAspect) {
    for (const stored of await storedAspects(context, ofType, [keyAspect, 'status'])) {
      found.set(stored.urn, {
        exists: stored.aspects[keyAspect] !== undefined,
        removed: recordOf(stored.aspects['status']?.value)?.['removed'] === true,
      });
    }
  }
  return urns.map((urn) => found.get(urn) ?? { exists: false, removed: false });
}

function keyAspectOf(registry: EntityRegistry, urn: string): string | undefined {
  try {
    return registry.entity(parseUrn(urn).entityType)?.keyAspect.name;
  } catch {
    return undefined;
  }
}

interface StoredEntity {
  readonly urn: string;
  readonly aspects: Readonly<Record<string, { readonly value: unknown } | undefined>>;
}

/**
 * The key and `status` aspects of entities as stored, from the writer's internal read: whether each exists and is
 * soft-deleted, whoever may read it (never any other aspect: what security reads goes through the security view).
 */
async function storedAspects(
  context: GraphqlContext,
  urns: readonly string[],
  aspects: readonly string[],
): Promise<StoredEntity[]> {
  const entities: StoredEntity[] = [];
  for (let start = 0; start < urns.length; start += PRESENCE_BATCH) {
    const body = recordOf(
      await context.system(
        {
          method: 'POST',
          resource: '/internal/entities/latest',
          body: { urns: urns.slice(start, start + PRESENCE_BATCH), aspects },
        },
        context.request,
      ),
    );
    for (const entity of Array.isArray(body?.['entities']) ? body['entities'] : []) {
      const stored = recordOf(entity);
      if (typeof stored?.['urn'] === 'string') {
        entities.push({ urn: stored['urn'], aspects: (recordOf(stored['aspects']) ?? {}) as StoredEntity['aspects'] });
      }
    }
  }
  return entities;
}
