/**
 * The timeseries hook: applies each timeseries change log to the index of its (entity, aspect), one index write per
 * batch. Idempotent: a point is keyed by its identity, so a redelivered batch writes the same documents again. A read
 * model: a write sent with `X-DataHub-Sync-Index-Update: true` is answered once its points are readable.
 */
import type { ChangeLogHook } from '@strata/change-log';
import type { TimeseriesIndex } from '@strata/indices';
import { timeseriesChangeOf } from '../domain/timeseries-points';

export function timeseriesHook(index: TimeseriesIndex): ChangeLogHook {
  return {
    name: 'timeseries',
    consumes: ['timeseries'],
    servesReads: true,
    apply: (events) => index.apply(events.flatMap((event) => timeseriesChangeOf(event) ?? [])),
  };
}
