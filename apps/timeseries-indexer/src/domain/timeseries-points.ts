import {
  TIME_RANGE_HEADERS,
  TIMESERIES_RUN_HEADER,
  timeseriesFieldsOf,
  timeseriesPointId,
  type AspectSpec,
  type AvroSchema,
  type JsonObject,
  type RecordSchema,
} from '@strata/model';
import type { TimeseriesChange, TimeseriesCollectionItem } from '@strata/indices';
import type { ChangeLogEvent } from '@strata/change-log';

/**
 * What a timeseries change log does to the indices: an upsert or a restatement puts its point (identified as the
 * store identifies it, so a replay overwrites); a DELETE removes the entity's points of the aspect in the range its
 * headers give (both bounds inclusive; no range: every point), only those of the run its headers name when they name
 * one (`runId`, what a run's rollback writes). A value without a numeric `timestampMillis` (which the writer never
 * emits) changes nothing.
 */
export function timeseriesChangeOf(event: ChangeLogEvent): TimeseriesChange | undefined {
  const entity = event.entity.name;
  const aspect = event.aspect.name;
  if (event.changeType === 'DELETE') {
    return {
      kind: 'deleteRange',
      entity,
      aspect,
      urn: event.urn,
      startTimeMillis: bound(event.headers[TIME_RANGE_HEADERS.from]),
      endTimeMillis: bound(event.headers[TIME_RANGE_HEADERS.until]),
      ...runOf(event.headers[TIMESERIES_RUN_HEADER]),
    };
  }
  const value = event.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const json = value as JsonObject;
  const timestampMillis = json['timestampMillis'];
  if (typeof timestampMillis !== 'number') return undefined;
  const systemMetadata = event.systemMetadata;
  return {
    kind: 'put',
    point: {
      entity,
      aspect,
      id: timeseriesPointId(event.urn, json),
      urn: event.urn,
      timestampMillis,
      value: JSON.stringify(json),
      systemMetadata: systemMetadata === undefined ? undefined : JSON.stringify(systemMetadata),
      fields: timeseriesFieldsOf(event.aspect, json, systemMetadata),
      ...collectionsOf(event.aspect, json),
    },
  };
}

/** The type of an optional value when it is there: `["null", T]` is T. */
export function presentType(type: AvroSchema): AvroSchema {
  if (type.type !== 'union') return type;
  const present = type.members.filter((member) => member.type !== 'null');
  return present.length === 1 && present.length < type.members.length ? (present[0] ?? type) : type;
}

/** A collection field of an aspect (DataHub's `@TimeseriesFieldCollection`): its name, key field and item record. */
export interface CollectionField {
  readonly name: string;
  readonly key: string;
  readonly item: RecordSchema;
}

const collectionFieldsCache = new WeakMap<AspectSpec, readonly CollectionField[]>();

/** The aspect's collection fields: arrays of records annotated `TimeseriesFieldCollection` with a key. */
export function collectionFieldsOf(aspect: AspectSpec): readonly CollectionField[] {
  let fields = collectionFieldsCache.get(aspect);
  if (fields === undefined) {
    fields = aspect.schema.fields.flatMap((field): CollectionField[] => {
      const annotation = field.annotations['TimeseriesFieldCollection'] as { key?: unknown } | undefined;
      const type = presentType(field.type);
      if (typeof annotation?.key !== 'string' || type.type !== 'array' || type.items.type !== 'record') return [];
      return [{ name: field.name, key: annotation.key, item: type.items }];
    });
    collectionFieldsCache.set(aspect, fields);
  }
  return fields;
}

/**
 * The items of the value's collections, as DataHub explodes them: per item, its key (the key field as text) and, under
 * `<collection>.<field>`, the key and the item's `@TimeseriesField`s (numbers, booleans and strings as they are,
 * records and arrays as their JSON). An item without its key is left out. Nothing for an aspect without collections;
 * for one with them, every collection, empty when the value has none (so that the items a point had are replaced).
 */
function collectionsOf(
  aspect: AspectSpec,
  value: JsonObject,
): { collections?: Record<string, TimeseriesCollectionItem[]> } {
  const fields = collectionFieldsOf(aspect);
  if (fields.length === 0) return {};
  const collections: Record<string, TimeseriesCollectionItem[]> = {};
  for (const field of fields) {
    const list = value[field.name];
    collections[field.name] = (Array.isArray(list) ? list : []).flatMap((entry): TimeseriesCollectionItem[] => {
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return [];
      const item = entry as JsonObject;
      const key = item[field.key];
      if (key === undefined || key === null) return [];
      const text = typeof key === 'string' ? key : JSON.stringify(key);
      const itemFields: Record<string, string | number | boolean> = { [`${field.name}.${field.key}`]: text };
      for (const stat of field.item.fields) {
        if (stat.annotations['TimeseriesField'] === undefined) continue;
        const statValue = item[stat.name];
        if (statValue === undefined || statValue === null) continue;
        itemFields[`${field.name}.${stat.name}`] =
          typeof statValue === 'number' || typeof statValue === 'boolean' || typeof statValue === 'string'
            ? statValue
            : JSON.stringify(statValue);
      }
      return [{ key: text, fields: itemFields }];
    });
  }
  return { collections };
}

/** The run a deletion is narrowed to, when its headers name one (the writer refuses an empty name). */
function runOf(header: string | undefined): { runId?: string } {
  return header === undefined || header === '' ? {} : { runId: header };
}

function bound(header: string | undefined): number | undefined {
  if (header === undefined || !/^-?[0-9]{1,16}$/.test(header)) return undefined;
  return Number(header);
}
