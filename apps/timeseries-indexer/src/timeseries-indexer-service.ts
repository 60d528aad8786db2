import type { EntityRegistry } from '@strata/model';
import type { EventSerde, TopicNames } from '@strata/events';
import type { MessageLog } from '@strata/log';
import type { TimeseriesIndex } from '@strata/indices';
import { ChangeLogProcessor, type ProcessorLogger } from '@strata/change-log';
import type { Scheduler } from '@strata/timing';
import type { StrataService } from '@strata/runtime';
import { timeseriesHook } from './consumers/timeseries-hook';
import { timeseriesRoutes } from './http/timeseries-routes';
import { analyticsRoutes } from './http/analytics-routes';
import { usageRoutes } from './http/usage-routes';

/** The service's name: its progress, metrics, log client, lock and files are named after it. */
export const TIMESERIES_INDEXER = 'timeseries-indexer';

export interface TimeseriesIndexerServiceOptions {
  readonly log: MessageLog;
  readonly index: TimeseriesIndex;
  readonly registry: EntityRegistry;
  readonly serde: EventSerde;
  readonly topics: TopicNames;
  readonly scheduler: Scheduler;
  readonly logger: ProcessorLogger;
  readonly groupId: string;
  readonly maxBatchSize: number;
}

/**
 * The timeseries indexer: a change-log processor with one hook on the timeseries change logs (`timeseries`, a read
 * model), `getTimeseriesAspectValues`, `getTimeseriesStats` and the usage queries over its indices, and the index
 * operations the operations service asks of it (sizes, counts, truncation tasks and their status).
 */
export function createTimeseriesIndexerService(options: TimeseriesIndexerServiceOptions): StrataService {
  const processor = new ChangeLogProcessor({
    name: TIMESERIES_INDEXER,
    groupId: options.groupId,
    log: options.log,
    serde: options.serde,
    registry: options.registry,
    topics: options.topics,
    hooks: [timeseriesHook(options.index)],
    scheduler: options.scheduler,
    logger: options.logger,
    maxBatchSize: options.maxBatchSize,
  });
  return {
    name: TIMESERIES_INDEXER,
    routes: [
      ...timeseriesRoutes(options.index, options.registry, processor),
      ...analyticsRoutes(options.index, options.registry),
      ...usageRoutes(options.index, () => options.scheduler.now()),
    ],
    readModels: processor.readModels,
    metrics: [processor.metrics],
    start: () => processor.start(),
    stop: () => processor.stop(),
  };
}
