import type { EntityRegistry } from '@strata/model';
import type { RouteCaller } from '@strata/http';
import type { StrataService } from '@strata/runtime';
import { operationsRoutes } from './http/operations-routes';
import type { IndexRebuilds } from './tasks/index-rebuild';

/** The service's name: its log lines and metrics are named after it. */
export const OPERATIONS = 'operations';

export interface OperationsServiceOptions {
  readonly registry: EntityRegistry;
  /** Calls the routes of the services that own the work (the writer, the timeseries indexer). */
  readonly call: RouteCaller;
  readonly now: () => number;
  /** The full rebuilds this service runs, with their ledger. */
  readonly rebuilds: IndexRebuilds;
}

/**
 * The operations service: index maintenance, done by asking each index's owner — the timeseries indexer for sizes,
 * counts and truncation tasks, the writer for the durable timeseries points and for replaying the primary store, the
 * indexers for emptying their indices before a full rebuild. It consumes no log; its only data is the ledger of the
 * rebuilds it runs.
 */
export function createOperationsService(options: OperationsServiceOptions): StrataService {
  return {
    name: OPERATIONS,
    routes: operationsRoutes(options),
    readModels: [],
    metrics: [options.rebuilds.metrics],
    start: () => Promise.resolve(),
    stop: () => options.rebuilds.stop(),
  };
}
