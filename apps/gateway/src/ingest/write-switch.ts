import { z } from 'zod';
import type { RequestContext, RouteCaller } from '@strata/http';
import { BadGatewayError, GATEWAY_WRITE_SWITCH_MARK, UnavailableError } from '@strata/model';

/** The mark the writer's store keeps the switch under: `"false"` while writes are off, anything else (or none): on. */
export const WRITABLE_MARK = GATEWAY_WRITE_SWITCH_MARK;

/** How long a gateway trusts the switch it read before reading it again: how late another gateway learns of a change. */
export const WRITE_SWITCH_TTL_MS = 1_000;

const marksAnswer = z.object({ marks: z.record(z.string(), z.string().nullable()) });

/**
 * DataHub's `setWritable`: writes switched off for a maintenance window (a restore from a backup, a migration), on
 * every gateway at once, kept across restarts. The switch is a mark in the writer's store, read through the writer's
 * internal reads like the security marks; a gateway reads it again once it is {@link WRITE_SWITCH_TTL_MS} old, so
 * the gateway that turned it learns at once and the others within that time.
 *
 * Where DataHub's storage layer drops writes silently while it is read-only, a gateway here refuses them, before they
 * reach the log, with a 503 naming the switch: a client's retry then lands once writes are back, and nothing it was
 * told is written is lost. Proposals produced straight onto the log (Kafka producers) do not pass through a gateway
 * and are applied as they come.
 */
export class WriteSwitch {
  private known: { readonly on: boolean; readonly at: number } | undefined;
  /** The read in flight, shared by every request that finds the last read too old. */
  private reading: Promise<boolean> | undefined;
  /** Bumped by every {@link set}: a read started before the latest set must not overwrite what it set. */
  private generation = 0;

  constructor(
    private readonly options: {
      readonly call: RouteCaller;
      /** The context of the gateway's own reads of the switch. */
      readonly context: RequestContext;
      readonly now: () => number;
    },
  ) {}

  /** Whether writes are on, as last read (at most {@link WRITE_SWITCH_TTL_MS} ago). */
  isOn(): Promise<boolean> {
    const known = this.known;
    if (known !== undefined && this.options.now() - known.at < WRITE_SWITCH_TTL_MS) return Promise.resolve(known.on);
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  /** Refuses, with a 503, a write arriving while writes are off. */
  async assertOn(): Promise<void> {
    if (!(await this.isOn())) {
      throw new UnavailableError(
        'Writes are switched off (POST /entities?action=setWritable {"value": false}): retry once they are switched back on',
      );
    }
  }

  /** Turns writes on or off, for every gateway: durable once this resolves. */
  async set(on: boolean, context: RequestContext): Promise<void> {
    await this.options.call(
      { method: 'POST', resource: '/internal/marks', body: { name: WRITABLE_MARK, value: on ? 'true' : 'false' } },
      context,
    );
    this.generation += 1;
    this.known = { on, at: this.options.now() };
  }

  private async read(): Promise<boolean> {
    const generation = this.generation;
    const answer = marksAnswer.safeParse(
      await this.options.call(
        { method: 'GET', resource: '/internal/marks', query: { name: [WRITABLE_MARK] } },
        this.options.context,
      ),
    );
    if (!answer.success) throw new BadGatewayError('The metadata writer answered the marks in an unexpected shape');
    const on = answer.data.marks[WRITABLE_MARK] !== 'false';
    // A set() since this read began knows better: what it set stands.
    if (generation !== this.generation && this.known !== undefined) return this.known.on;
    this.known = { on, at: this.options.now() };
    return on;
  }
}
