import { createHash } from 'node:crypto';
import type { JsonObject } from './aspect-validator';
import type { AspectSpec, EntityRegistry, EntitySpec } from './entity-registry';
import { BadRequestError } from './errors';

/**
 * A point of a timeseries aspect is identified as DataHub identifies its document: by the entity, the timestamp, the
 * event granularity, the message id and the partition spec. Two values that agree on these are the same point, and the
 * later replaces the earlier — in the primary store's durable copy and in every timeseries index alike, so that
 * rebuilding an index from the store gives back exactly the points it held.
 *
 * The id is DataHub's: the MD5 (hex) of the concatenation of the timestamp, the granularity (a JSON string, quoted),
 * the URN (quoted), the message id (quoted) and the partition spec (`{"partition": …}` or `{"timePartition": "<JSON>"}`),
 * each present part written as JSON. Objects nested in the granularity and the time partition are written with their
 * keys in code-point order, so the id does not depend on the order a client sent them in.
 */
export function timeseriesPointId(urn: string, value: JsonObject): string {
  const timestamp = value['timestampMillis'];
  let source = typeof timestamp === 'number' ? String(timestamp) : JSON.stringify(timestamp ?? null);
  const granularity = value['eventGranularity'];
  if (isPresent(granularity)) source += JSON.stringify(canonicalJson(granularity));
  source += JSON.stringify(urn);
  const messageId = value['messageId'];
  if (isPresent(messageId)) source += JSON.stringify(messageId);
  const partition = partitionSpecOf(value);
  if (partition !== undefined) source += JSON.stringify(partition);
  return createHash('md5').update(source, 'utf8').digest('hex');
}

/**
 * The partition spec as DataHub indexes it: `{partition}` for a named partition (its `type` dropped), or
 * `{timePartition: "<JSON of the window>"}`; undefined when the value has none.
 */
export function partitionSpecOf(value: JsonObject): { partition: string } | { timePartition: string } | undefined {
  const spec = value['partitionSpec'];
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return undefined;
  const { partition, timePartition } = spec as Record<string, unknown>;
  if (isPresent(partition)) return { partition: String(partition) };
  if (isPresent(timePartition)) return { timePartition: canonicalJson(timePartition) };
  return undefined;
}

/**
 * The fields of a point that filters and sorts may name, as DataHub puts them at the top of a timeseries document:
 * every `@TimeseriesField` of the aspect that the value has (numbers as numbers, booleans as booleans, strings and
 * enums as strings, records and arrays as their JSON), then `runId` (the system metadata's unless the aspect has its
 * own), `messageId`, `eventGranularity` (its JSON) and `partitionSpec.partition`.
 */
export function timeseriesFieldsOf(
  aspect: AspectSpec,
  value: JsonObject,
  systemMetadata: JsonObject | undefined,
): Record<string, string | number | boolean> {
  const fields: Record<string, string | number | boolean> = {};
  const runId = systemMetadata?.['runId'];
  if (typeof runId === 'string') fields['runId'] = runId;
  const messageId = value['messageId'];
  if (typeof messageId === 'string') fields['messageId'] = messageId;
  const granularity = value['eventGranularity'];
  if (isPresent(granularity)) fields['eventGranularity'] = canonicalJson(granularity);
  const partition = partitionSpecOf(value);
  if (partition !== undefined && 'partition' in partition) fields['partitionSpec.partition'] = partition.partition;
  for (const name of timeseriesFieldNames(aspect)) {
    const field = value[name];
    if (!isPresent(field)) continue;
    fields[name] =
      typeof field === 'number' || typeof field === 'boolean' || typeof field === 'string'
        ? field
        : canonicalJson(field);
  }
  return fields;
}

const fieldNamesCache = new WeakMap<AspectSpec, readonly string[]>();

/** The top-level fields of the aspect annotated `TimeseriesField`. */
export function timeseriesFieldNames(aspect: AspectSpec): readonly string[] {
  let names = fieldNamesCache.get(aspect);
  if (names === undefined) {
    names = aspect.schema.fields
      .filter((field) => field.annotations['TimeseriesField'] !== undefined)
      .map((field) => field.name);
    fieldNamesCache.set(aspect, names);
  }
  return names;
}

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** JSON with object keys in code-point order at every level. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, nested: unknown) => {
    if (typeof nested !== 'object' || nested === null || Array.isArray(nested)) return nested;
    const entries = Object.entries(nested as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries);
  });
}

/**
 * The timeseries aspect a request names, entity type and aspect each in any case, as DataHub takes them (its registry
 * lookup ignores case, and its index names are lowercase: getIndexSizes answers `datasetusagestatistics`). A 400 with
 * DataHub's text for an unknown entity type; with the reason for an unknown or versioned aspect.
 */
export function timeseriesAspectNamed(
  registry: EntityRegistry,
  entityName: string,
  aspectName: string,
): { readonly entity: EntitySpec; readonly aspect: AspectSpec } {
  const entity =
    registry.entity(entityName) ??
    registry.entities().find((candidate) => candidate.name.toLowerCase() === entityName.toLowerCase());
  if (entity === undefined)
    throw new BadRequestError(`Failed to find entity with name ${entityName} in EntityRegistry`);
  const aspect =
    entity.aspect(aspectName) ??
    entity.aspects.find((candidate) => candidate.name.toLowerCase() === aspectName.toLowerCase());
  if (aspect === undefined) throw new BadRequestError(`Unknown aspect ${aspectName} for entity ${entity.name}`);
  if (aspect.kind !== 'timeseries') {
    throw new BadRequestError(
      `Aspect ${aspect.name} of entity ${entity.name} is not a timeseries aspect (a versioned aspect is read with GET /aspects)`,
    );
  }
  return { entity, aspect };
}

/** Every (entity type, timeseries aspect) of the registry: the timeseries indices a deployment keeps. */
export function timeseriesAspectsOf(registry: EntityRegistry): { readonly entity: string; readonly aspect: string }[] {
  return registry
    .entities()
    .flatMap((entity) =>
      entity.aspects
        .filter((aspect) => aspect.kind === 'timeseries')
        .map((aspect) => ({ entity: entity.name, aspect: aspect.name })),
    );
}
