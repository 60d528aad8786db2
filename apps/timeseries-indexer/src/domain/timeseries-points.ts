import { TIME_RANGE_HEADERS, timeseriesFieldsOf, timeseriesPointId, type JsonObject } from '@strata/model';
import type { TimeseriesChange } from '@strata/indices';
import type { ChangeLogEvent } from '@strata/change-log';

/**
 * What a timeseries change log does to the indices: an upsert or a restatement puts its point (identified as the
 * store identifies it, so a replay overwrites); a DELETE removes the entity's points of the aspect in the range its
 * headers give (both bounds inclusive; no range: every point). A value without a numeric `timestampMillis` (which the
 * writer never emits) changes nothing.
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
    },
  };
}

function bound(header: string | undefined): number | undefined {
  if (header === undefined || !/^-?[0-9]{1,16}$/.test(header)) return undefined;
  return Number(header);
}
