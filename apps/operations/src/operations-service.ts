import type { EntityRegistry } from '@strata/model';
import type { RouteCaller } from '@strata/http';
import type { StrataService } from '@strata/runtime';
import type { ChangeLogProcessor } from '@strata/change-log';
import { operationsRoutes } from './http/operations-routes';
import { testRoutes } from './http/test-routes';
import type { TestReads } from './metadata-tests/test-reads';
import type { TestUpkeep } from './metadata-tests/test-upkeep';
import type { IndexRebuilds } from './tasks/index-rebuild';
import type { TaskLedger } from './tasks/task-ledger';

/** The service's name: its log lines and metrics are named after it. */
export const OPERATIONS = 'operations';

export interface OperationsServiceOptions {
  readonly registry: EntityRegistry;
  /** Calls the routes of the services that own the work (the writer, the indexers). */
  readonly call: RouteCaller;
  readonly now: () => number;
  /** The ledger of the service's tasks: rebuilds and re-evaluations. */
  readonly ledger: TaskLedger;
  /** The full rebuilds this service runs. */
  readonly rebuilds: IndexRebuilds;
  /** What metadata tests read, through the owners. */
  readonly testReads: TestReads;
  /** Automatic evaluation of metadata tests, when on: its upkeep and the processor running its hook. */
  readonly automatic?: { readonly upkeep: TestUpkeep; readonly processor: ChangeLogProcessor };
}

/**
 * The operations service: index maintenance, done by asking each index's owner — the timeseries indexer for sizes,
 * counts and truncation tasks, the writer for the durable timeseries points and for replaying the primary store, the
 * indexers for emptying their indices before a full rebuild — and metadata tests: their evaluation, and (when on) their
 * automatic upkeep, a hook on the versioned change logs. Its only data is the ledger of the tasks it runs.
 */
export function createOperationsService(options: OperationsServiceOptions): StrataService {
  const { automatic } = options;
  return {
    name: OPERATIONS,
    routes: [
      ...operationsRoutes(options),
      ...testRoutes({
        registry: options.registry,
        reads: options.testReads,
        ledger: options.ledger,
        now: options.now,
        autoEvaluation: automatic !== undefined,
      }),
    ],
    // Automatic evaluation is nobody's read model: no write waits for it.
    readModels: [],
    metrics: [
      options.rebuilds.metrics,
      ...(automatic === undefined ? [] : [automatic.upkeep.metrics, automatic.processor.metrics]),
    ],
    async start() {
      if (automatic === undefined) return;
      await automatic.upkeep.start();
      await automatic.processor.start();
    },
    async stop() {
      await options.rebuilds.stop();
      if (automatic === undefined) return;
      await automatic.processor.stop();
      await automatic.upkeep.stop();
    },
  };
}
