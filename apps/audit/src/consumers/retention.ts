import type { AuditIndex } from '@strata/indices';
import type { Scheduler } from '@strata/timing';

/** How often expired events are removed. */
export const RETENTION_SWEEP_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Keeps the trail to its retention: at start and every hour, removes the events older than `days` days. A sweep that
 * fails is logged and tried again at the next one; `days` of 0 keeps everything.
 */
export class RetentionSweeper {
  private stopping = new AbortController();
  private running: Promise<void> | undefined;

  constructor(
    private readonly options: {
      readonly index: AuditIndex;
      readonly days: number;
      readonly scheduler: Scheduler;
      readonly logger: { warn(details: object, message: string): void; info(details: object, message: string): void };
    },
  ) {}

  start(): void {
    if (this.options.days === 0 || this.running !== undefined) return;
    this.stopping = new AbortController();
    this.running = this.loop(this.stopping.signal);
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
    this.running = undefined;
  }

  /** One sweep: removes what is older than the retention; resolves with how many events went. */
  async sweep(): Promise<number> {
    return this.options.index.expire(this.options.scheduler.now() - this.options.days * DAY_MS);
  }

  private async loop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const removed = await this.sweep();
        if (removed > 0)
          this.options.logger.info({ removed, retentionDays: this.options.days }, 'expired audit events');
      } catch (error) {
        this.options.logger.warn({ err: error }, 'expiring audit events failed; trying again at the next sweep');
      }
      await this.options.scheduler.sleep(RETENTION_SWEEP_MS, signal);
    }
  }
}
