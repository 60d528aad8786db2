/**
 * An exponential backoff: the first retry waits `initialMs`, each further one `factor` times longer, never more than
 * `maxMs`. A factor of 1 waits the same time before every retry.
 */
export interface Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
  /** Growth per retry. Default 2. */
  readonly factor?: number;
}

/** How long to wait after the `attempt`-th consecutive failure (1 for the first). */
export function backoffDelay(backoff: Backoff, attempt: number): number {
  const { initialMs, maxMs, factor = 2 } = backoff;
  const exponent = Math.max(0, Math.min(attempt - 1, 64));
  return Math.min(maxMs, initialMs * factor ** exponent);
}
