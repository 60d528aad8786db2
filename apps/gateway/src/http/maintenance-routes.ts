import { z } from 'zod';
import { booleanParam, defineRoute, type Route } from '@strata/http';
import { BadRequestError } from '@strata/model';
import type { WriteSwitch } from '../ingest/write-switch';

/** The part of a logger the switch reports to (pino's signature). */
interface Logger {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * DataHub's maintenance actions of `/entities`: `setWritable` switches writes off and on for every gateway (see
 * {@link WriteSwitch}); `applyRetention` is refused with a clear 400, as Strata keeps every version (`GET /config`
 * says `retention: "false"`), rather than answered as an unknown action, so a caller learns what Strata does.
 */
export function maintenanceRoutes(options: { readonly writeSwitch?: WriteSwitch; readonly logger?: Logger }): Route[] {
  return [
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'setWritable',
      family: 'restli',
      access: {
        kind: 'privilege',
        anyOf: [['SET_WRITEABLE_PRIVILEGE']],
        message: 'User is unauthorized to enable and disable write mode.',
      },
      summary: 'Switch writes off (`value: false`) or back on (`value: true`, the default), on every gateway.',
      example: { body: { value: false } },
      description:
        'While writes are off, every write through a gateway (ingest, deletes, rollbacks, the OpenAPI writes, ' +
        'tokens) is refused with a 503 naming the switch, before it reaches the log, so a client retry lands once ' +
        'they are back on; reads go on. The switch is kept in the primary store: it holds across restarts, and ' +
        'another gateway follows it within a second. Proposals produced straight onto the log are still applied.',
      body: z.object({ value: booleanParam().nullish() }),
      handle: async ({ body, context }) => {
        const on = body.value !== false;
        if (options.writeSwitch === undefined) {
          if (!on) throw new BadRequestError('This gateway has no write switch: writes cannot be switched off');
          return {};
        }
        await options.writeSwitch.set(on, context);
        options.logger?.warn({ actor: context.actor, writable: on }, on ? 'writes switched on' : 'writes switched off');
        return {};
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'applyRetention',
      family: 'restli',
      access: {
        kind: 'privilege',
        anyOf: [['APPLY_RETENTION_PRIVILEGE']],
        message: 'User is unauthorized to apply retention.',
      },
      summary: 'Apply version retention: not supported, Strata keeps every version of every aspect.',
      example: { body: { aspectName: 'datasetProperties' } },
      description:
        'Always a 400 naming why: no retention policy exists to apply (`GET /config` reports `retention: "false"`).',
      body: z
        .object({
          start: z.number().int().nullish(),
          count: z.number().int().nullish(),
          attemptWithVersion: z.number().int().nullish(),
          aspectName: z.string().nullish(),
          urn: z.string().nullish(),
        })
        .nullish(),
      handle: () => {
        throw new BadRequestError(
          'Version retention is not supported: Strata keeps every version of every aspect (GET /config reports retention: "false")',
        );
      },
    }),
  ];
}
