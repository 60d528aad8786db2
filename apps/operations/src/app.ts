import { join } from 'node:path';
import { Agent } from 'undici';
import { SYSTEM_ACTOR_URN } from '@strata/model';
import { ChangeLogProcessor } from '@strata/change-log';
import type { MessageLog } from '@strata/log';
import {
  routeCaller,
  servicesBehind,
  systemClientAuthenticator,
  type AnyRoute,
  type RequestContext,
  type RunnableService,
} from '@strata/http';
import { hostServices, type HostContext, type StrataService } from '@strata/runtime';
import type { OperationsConfig } from './config';
import { resultsPublisher } from './metadata-tests/results-publisher';
import { testReads } from './metadata-tests/test-reads';
import { METADATA_TESTS_HOOK, TEST_TASK_KIND, TestUpkeep } from './metadata-tests/test-upkeep';
import { createOperationsService, OPERATIONS } from './operations-service';
import { IndexRebuilds } from './tasks/index-rebuild';
import { TaskLedger } from './tasks/task-ledger';

/** The settings {@link composeOperations} reads: the operations service's own, wherever it runs. */
export type OperationsSettings = Pick<
  OperationsConfig,
  'METADATA_TESTS_AUTO_EVALUATION' | 'METADATA_TESTS_GROUP_ID' | 'METADATA_TESTS_MAX_BATCH_SIZE'
>;

/** The context of the service's own calls (automatic evaluation): the system actor's. */
const UPKEEP_CONTEXT: RequestContext = {
  requestId: METADATA_TESTS_HOOK,
  traceId: METADATA_TESTS_HOOK,
  actor: SYSTEM_ACTOR_URN,
  sourceIp: undefined,
  userAgent: `strata-${OPERATIONS}`,
  eventSource: 'RESTLI',
  url: '/internal/metadata-tests',
  header: () => undefined,
};

/**
 * Builds the operations service in front of `owners`, the routes of the services that own the work (the writer's,
 * the search indexer's and the timeseries indexer's, in-process or forwarded): the one place both the service alone
 * and the standalone process turn them into it. With automatic test evaluation on, `log` is where it reads the change
 * logs and publishes its pushes.
 */
export async function composeOperations(
  context: HostContext,
  owners: readonly AnyRoute[],
  settings: OperationsSettings,
  log: MessageLog | undefined,
): Promise<StrataService> {
  const now = () => context.scheduler.now();
  const ledger = await context.engines.openServiceFile(context.scope, OPERATIONS, 'task ledger', (directory) => {
    return new TaskLedger({ path: join(directory, `${OPERATIONS}.sqlite`), now, resumable: [TEST_TASK_KIND] });
  });
  const call = routeCaller(owners);
  const logger = context.logger.child({ component: OPERATIONS });
  const reads = testReads(context.model.registry, call, logger);
  let automatic: { upkeep: TestUpkeep; processor: ChangeLogProcessor } | undefined;
  if (settings.METADATA_TESTS_AUTO_EVALUATION) {
    if (log === undefined) throw new Error('Automatic test evaluation needs the message log');
    const upkeep = new TestUpkeep({
      registry: context.model.registry,
      reads,
      ledger,
      publish: resultsPublisher(log, context.model.serde, context.model.topics),
      context: UPKEEP_CONTEXT,
      scheduler: context.scheduler,
      logger,
    });
    const processor = new ChangeLogProcessor({
      name: METADATA_TESTS_HOOK,
      groupId: settings.METADATA_TESTS_GROUP_ID,
      log,
      serde: context.model.serde,
      registry: context.model.registry,
      topics: context.model.topics,
      hooks: [upkeep.hook()],
      scheduler: context.scheduler,
      logger,
      maxBatchSize: settings.METADATA_TESTS_MAX_BATCH_SIZE,
    });
    automatic = { upkeep, processor };
  }
  return createOperationsService({
    registry: context.model.registry,
    call,
    now,
    ledger,
    rebuilds: new IndexRebuilds({ ledger, call, scheduler: context.scheduler, logger }),
    testReads: reads,
    ...(automatic === undefined ? {} : { automatic }),
  });
}

/**
 * The operations service running alone: at start it reads the service tables of OPERATIONS_SERVICE_URLS and calls
 * their routes over HTTP as the system client, on behalf of each request's actor.
 */
export function createOperationsApp(config: OperationsConfig): RunnableService {
  return hostServices(OPERATIONS, config, async (context) => {
    const dispatcher = await context.scope.open(
      'connections to the services',
      () => new Agent({ keepAliveTimeout: 30_000 }),
      (agent) => agent.close(),
    );
    const systemClient = { id: config.DATAHUB_SYSTEM_CLIENT_ID, secret: config.DATAHUB_SYSTEM_CLIENT_SECRET };
    const services = await servicesBehind(config.OPERATIONS_SERVICE_URLS, {
      discoveryTimeoutMs: config.SERVICE_DISCOVERY_TIMEOUT_MS,
      scheduler: context.scheduler,
      dispatcher,
      timeoutMs: config.FORWARD_TIMEOUT_MS,
      systemClient,
    });
    const log = config.METADATA_TESTS_AUTO_EVALUATION
      ? await context.engines.openLog(context.scope, OPERATIONS)
      : undefined;
    const operations = await composeOperations(
      context,
      services.flatMap((service) => service.routes),
      config,
      log,
    );
    return {
      services: [operations],
      serviceTableOf: operations,
      maxBodyBytes: 64 * 1024,
      // Behind a gateway: only the system client (the gateway) is served.
      authenticate: systemClientAuthenticator(systemClient, SYSTEM_ACTOR_URN),
    };
  });
}
