import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * What is measured of every request a process answers. The route is the declared one (`/entitiesV2/{urn}`,
 * `/aspects?action=ingestProposal`), {@link UNMATCHED_ROUTE} for paths no route claims — never the path, whose values
 * are unbounded.
 */
export interface MeasuredRequest {
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly seconds: number;
}

/** The route label of requests no route claimed (404s of unknown paths, and requests refused before routing). */
export const UNMATCHED_ROUTE = 'unmatched';

/** A process's HTTP server metrics (`strata_http_*`), in a registry of their own, served at `/metrics`. */
export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly durations: Histogram<'method' | 'route' | 'status'>;
  private readonly inFlight: Gauge;

  constructor() {
    const registers = [this.registry];
    const labelNames = ['method', 'route', 'status'] as const;
    this.requests = new Counter({
      name: 'strata_http_requests_total',
      help: 'HTTP requests answered, by method, declared route and status.',
      labelNames,
      registers,
    });
    this.durations = new Histogram({
      name: 'strata_http_request_duration_seconds',
      help: 'Time from receiving an HTTP request to having sent its answer, by method, declared route and status.',
      labelNames,
      // Reads take milliseconds; a write waiting for indexing, or a forwarded call, may take up to its timeout.
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.inFlight = new Gauge({
      name: 'strata_http_requests_in_flight',
      help: 'HTTP requests received and not yet answered.',
      registers,
    });
  }

  /** A request was received. */
  started(): void {
    this.inFlight.inc();
  }

  /** A request `started` was answered (or given up by its client). */
  finished({ method, route, status, seconds }: MeasuredRequest): void {
    this.inFlight.dec();
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.durations.observe(labels, seconds);
  }
}
