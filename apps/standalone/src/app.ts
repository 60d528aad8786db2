import type { RunnableService } from '@strata/http';
import { hostServices } from '@strata/runtime';
import { builtConsole, composeGateway } from '@strata/gateway';
import { composeMetadataWriter } from '@strata/metadata-writer';
import { composeSearchIndexer } from '@strata/search-indexer';
import { composeAudit } from '@strata/audit';
import { composeTimeseriesIndexer } from '@strata/timeseries-indexer';
import { composeOperations } from '@strata/operations';
import type { StandaloneConfig } from './config';

/**
 * The standalone process: every service in one process, composed — the writer, the search indexer, the audit
 * service and the timeseries indexer on the process's log, the operations service in front of the writer and the
 * timeseries indexer, the gateway in front of them serving their routes in-process and waiting for the indexer's read models. The
 * engines are the embedded ones by default (each service's files under DATA_DIR); Kafka, MongoDB and Elasticsearch
 * when configured, as for the services run alone.
 */
export function createStandaloneApp(config: StandaloneConfig): RunnableService {
  return hostServices('Strata', config, async (context) => {
    const log = await context.engines.openLog(context.scope, 'standalone');
    const writer = await composeMetadataWriter(context, config, log);
    const indexer = await composeSearchIndexer(context, config, log);
    const audit = await composeAudit(context, config, log);
    const timeseries = await composeTimeseriesIndexer(context, config, log);
    const operations = await composeOperations(
      context,
      [...writer.routes, ...indexer.routes, ...timeseries.routes],
      config,
      log,
    );
    const {
      service: gateway,
      authenticate,
      guard,
    } = composeGateway(context, config, log, {
      routes: [...writer.routes, ...indexer.routes, ...audit.routes, ...timeseries.routes, ...operations.routes],
      readModels: [...writer.readModels, ...indexer.readModels, ...audit.readModels, ...timeseries.readModels],
    });
    return {
      services: [writer, indexer, audit, timeseries, operations, gateway],
      // The gateway last: it writes the root user and the default policies at start, which the writer must take.
      startTogether: [[writer, indexer, audit, timeseries, operations], [gateway]],
      routes: gateway.routes,
      documented: true,
      console: builtConsole(context.logger),
      maxBodyBytes: config.MAX_BODY_BYTES,
      authenticate,
      guard,
    };
  });
}
