import type { RunnableService } from '@strata/http';
import { hostServices } from '@strata/runtime';
import { composeGateway } from '@strata/gateway';
import { composeMetadataWriter } from '@strata/metadata-writer';
import { composeSearchIndexer } from '@strata/search-indexer';
import { composeAudit } from '@strata/audit';
import type { StandaloneConfig } from './config';

/**
 * The standalone process: every service in one process, composed — the writer, the search indexer and the audit
 * service on the process's log, the gateway in front of them serving their routes in-process and waiting for the indexer's read models. The
 * engines are the embedded ones by default (each service's files under DATA_DIR); Kafka, MongoDB and Elasticsearch
 * when configured, as for the services run alone.
 */
export function createStandaloneApp(config: StandaloneConfig): RunnableService {
  return hostServices('Strata', config, async (context) => {
    const log = await context.engines.openLog(context.scope, 'standalone');
    const writer = await composeMetadataWriter(context, config, log);
    const indexer = await composeSearchIndexer(context, config, log);
    const audit = await composeAudit(context, config, log);
    const {
      service: gateway,
      authenticate,
      guard,
    } = composeGateway(context, config, log, {
      routes: [...writer.routes, ...indexer.routes, ...audit.routes],
      readModels: [...writer.readModels, ...indexer.readModels, ...audit.readModels],
    });
    return {
      services: [writer, indexer, audit, gateway],
      routes: gateway.routes,
      documented: true,
      maxBodyBytes: config.MAX_BODY_BYTES,
      authenticate,
      guard,
    };
  });
}
