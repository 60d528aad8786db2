import { LISTED_SECURITY_ASPECTS, securityMarksOf } from '@strata/auth';
import { METADATA_TEST_ASPECT, SYSTEM_ACTOR_URN } from '@strata/model';
import type { MessageLog } from '@strata/log';
import { systemClientAuthenticator, type RunnableService } from '@strata/http';
import { hostServices, type HostContext, type StrataService } from '@strata/runtime';
import type { MetadataWriterConfig } from './config';
import { createMetadataWriterService } from './metadata-writer-service';

/** The service's name: its log client, lock and store file (`<DATA_DIR>/metadata-writer.sqlite`) are named after it. */
export const METADATA_WRITER = 'metadata-writer';

/** The settings {@link composeMetadataWriter} reads: the writer's own, wherever it runs. */
export type MetadataWriterSettings = Pick<
  MetadataWriterConfig,
  'WRITER_GROUP_ID' | 'WRITER_MAX_BATCH_SIZE' | 'INGESTION_MAX_SERIALIZED_STRING_LENGTH'
>;

/**
 * Opens the writer's primary store (as the engines' configuration says) and builds the writer on the process's log:
 * the one place both the writer alone and the standalone process turn configuration into a writer. Here, and only
 * here, the writer learns what its readers need of it: which aspects the store lists whole (the policies and tokens
 * the gateway reads, the metadata tests the operations service reads), and which marks a change sets (those the
 * gateway's security reads derive from). The writer itself knows nothing of authorization.
 */
export async function composeMetadataWriter(
  context: HostContext,
  settings: MetadataWriterSettings,
  log: MessageLog,
): Promise<StrataService> {
  const store = await context.engines.openStore(context.scope, METADATA_WRITER, {
    listedAspects: [...LISTED_SECURITY_ASPECTS, METADATA_TEST_ASPECT],
  });
  return createMetadataWriterService({
    ...context.model,
    log,
    store,
    scheduler: context.scheduler,
    logger: context.logger.child({ component: METADATA_WRITER }),
    groupId: settings.WRITER_GROUP_ID,
    systemActor: SYSTEM_ACTOR_URN,
    maxAspectBytes: settings.INGESTION_MAX_SERIALIZED_STRING_LENGTH,
    maxBatchSize: settings.WRITER_MAX_BATCH_SIZE,
    marksOf: securityMarksOf,
  });
}

/** The metadata-writer running alone: consumes proposals and serves the primary-store reads, for a gateway in front. */
export function createMetadataWriterApp(config: MetadataWriterConfig): RunnableService {
  return hostServices(METADATA_WRITER, config, async (context) => {
    const log = await context.engines.openLog(context.scope, METADATA_WRITER);
    const writer = await composeMetadataWriter(context, config, log);
    return {
      services: [writer],
      serviceTableOf: writer,
      maxBodyBytes: 1024 * 1024,
      // Behind a gateway: only the system client (the gateway, the other services) is served.
      authenticate: systemClientAuthenticator(
        { id: config.DATAHUB_SYSTEM_CLIENT_ID, secret: config.DATAHUB_SYSTEM_CLIENT_SECRET },
        SYSTEM_ACTOR_URN,
      ),
    };
  });
}
