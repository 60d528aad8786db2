import { join } from 'node:path';
import { Agent } from 'undici';
import { SYSTEM_ACTOR_URN } from '@strata/model';
import {
  routeCaller,
  servicesBehind,
  systemClientAuthenticator,
  type AnyRoute,
  type RunnableService,
} from '@strata/http';
import { hostServices, type HostContext, type StrataService } from '@strata/runtime';
import type { OperationsConfig } from './config';
import { createOperationsService, OPERATIONS } from './operations-service';
import { IndexRebuilds } from './tasks/index-rebuild';
import { TaskLedger } from './tasks/task-ledger';

/**
 * Builds the operations service in front of `owners`, the routes of the services that own the work (the writer's and
 * the timeseries indexer's, in-process or forwarded): the one place both the service alone and the standalone process
 * turn them into it.
 */
export async function composeOperations(context: HostContext, owners: readonly AnyRoute[]): Promise<StrataService> {
  const now = () => context.scheduler.now();
  const ledger = await context.engines.openServiceFile(context.scope, OPERATIONS, 'task ledger', (directory) => {
    return new TaskLedger({ path: join(directory, `${OPERATIONS}.sqlite`), now });
  });
  const call = routeCaller(owners);
  return createOperationsService({
    registry: context.model.registry,
    call,
    now,
    rebuilds: new IndexRebuilds({ ledger, call, now, logger: context.logger.child({ component: OPERATIONS }) }),
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
    const operations = await composeOperations(
      context,
      services.flatMap((service) => service.routes),
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
