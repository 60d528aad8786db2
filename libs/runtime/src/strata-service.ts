import type { Registry } from 'prom-client';
import type { AnyRoute } from '@strata/http';
import type { ReadModel } from '@strata/change-log';

/**
 * What every Strata service is, the gateway included: the routes it owns, the read models it keeps, its metrics, and
 * how to start and stop it. A process hosts one service (run alone) or several (the standalone process); either way
 * it starts them in order once its HTTP server listens, and stops them in reverse.
 */
export interface StrataService {
  /** `gateway`, `metadata-writer`, `search-indexer`…: in logs, the route table, and the gateway's messages. */
  readonly name: string;
  /** The public routes it owns: served by its process, documented, and forwarded by a gateway in front of it. */
  readonly routes: readonly AnyRoute[];
  /** The change-log hooks it runs that serve reads: a write waiting for indexing waits for them. */
  readonly readModels: readonly ReadModel[];
  /** Prometheus metrics, merged into its process's `/metrics`. */
  readonly metrics: readonly Registry[];
  /** Starts its work (consumers, relays). Resolves once it is ready. */
  start(): Promise<void>;
  /** Stops its work, finishing what is in hand. Safe to call whether or not `start` finished, and more than once. */
  stop(): Promise<void>;
}
