import { z } from 'zod';
import { booleanParam, defineRoute, type Route } from '@strata/http';
import { BadRequestError } from '@strata/model';

/**
 * DataHub's maintenance actions of `/entities` that Strata answers truthfully without a feature behind them:
 * `setWritable` (Strata is always writable: asking for that succeeds, asking for a read-only mode is refused) and
 * `applyRetention` (Strata keeps every version, as `GET /config` says with `retention: "false"`). Both are refused with
 * a clear 400 rather than answered as an unknown action, so a caller learns what Strata does.
 */
export function maintenanceRoutes(): Route[] {
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
      summary: 'Switch writes on or off: Strata is always writable, so only `value: true` (the default) is accepted.',
      example: { body: { value: true } },
      description:
        '`value: true` answers 200 (writes are on). `value: false` is a 400: Strata has no read-only mode yet, and ' +
        'says so rather than pretending to have switched writes off.',
      body: z.object({ value: booleanParam().nullish() }),
      handle: ({ body }) => {
        if (body.value === false) {
          throw new BadRequestError(
            'A read-only mode is not supported: Strata is always writable. Stop the writers (the gateways) to stop writes.',
          );
        }
        return Promise.resolve({});
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
