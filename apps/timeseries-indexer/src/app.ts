import { SYSTEM_ACTOR_URN, timeseriesAspectsOf } from '@strata/model';
import type { MessageLog } from '@strata/log';
import { systemClientAuthenticator, type RunnableService } from '@strata/http';
import { hostServices, type HostContext, type StrataService } from '@strata/runtime';
import type { TimeseriesIndexerConfig } from './config';
import { createTimeseriesIndexerService, TIMESERIES_INDEXER } from './timeseries-indexer-service';

/** The settings {@link composeTimeseriesIndexer} reads: the timeseries indexer's own, wherever it runs. */
export type TimeseriesIndexerSettings = Pick<
  TimeseriesIndexerConfig,
  'TIMESERIES_INDEXER_GROUP_ID' | 'TIMESERIES_INDEXER_MAX_BATCH_SIZE'
>;

/**
 * Opens the timeseries indices (Elasticsearch when ELASTICSEARCH_URL is set, else a SQLite file under DATA_DIR), one
 * per timeseries aspect of the registry, and builds the indexer on the process's log: the one place both the indexer
 * alone and the standalone process turn configuration into it.
 */
export async function composeTimeseriesIndexer(
  context: HostContext,
  settings: TimeseriesIndexerSettings,
  log: MessageLog,
): Promise<StrataService> {
  const index = await context.engines.openTimeseriesIndex(
    context.scope,
    TIMESERIES_INDEXER,
    timeseriesAspectsOf(context.model.registry),
  );
  return createTimeseriesIndexerService({
    ...context.model,
    log,
    index,
    scheduler: context.scheduler,
    logger: context.logger.child({ component: TIMESERIES_INDEXER }),
    groupId: settings.TIMESERIES_INDEXER_GROUP_ID,
    maxBatchSize: settings.TIMESERIES_INDEXER_MAX_BATCH_SIZE,
  });
}

/** The timeseries indexer running alone: consumes the timeseries change logs and serves their reads, behind a gateway. */
export function createTimeseriesIndexerApp(config: TimeseriesIndexerConfig): RunnableService {
  return hostServices(TIMESERIES_INDEXER, config, async (context) => {
    const log = await context.engines.openLog(context.scope, TIMESERIES_INDEXER);
    const indexer = await composeTimeseriesIndexer(context, config, log);
    return {
      services: [indexer],
      serviceTableOf: indexer,
      maxBodyBytes: 1024 * 1024,
      // Behind a gateway: only the system client (the gateway, the other services) is served.
      authenticate: systemClientAuthenticator(
        { id: config.DATAHUB_SYSTEM_CLIENT_ID, secret: config.DATAHUB_SYSTEM_CLIENT_SECRET },
        SYSTEM_ACTOR_URN,
      ),
    };
  });
}
