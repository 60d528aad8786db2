/** Latency percentiles of a series of closed-loop requests, in milliseconds. */
export interface Percentiles {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

/** The nearest-rank percentiles of `samples` (all zero when there are none). */
export function percentiles(samples: readonly number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (quantile: number) => sorted[Math.max(0, Math.ceil(quantile * sorted.length) - 1)] ?? 0;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 };
}
