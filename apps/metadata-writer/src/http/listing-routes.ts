import { z } from 'zod';
import { defineRoute, restliListParam, type Route } from '@strata/http';
import { BadRequestError, type EntityRegistry } from '@strata/model';
import type { AspectStore } from '@strata/store';
import { compileUrnPattern } from '../domain/urn-pattern';
import type { EntityReader } from '../reads/entity-reader';
import { batchRead, snapshotBody } from './read-routes';

export interface ListingRouteOptions {
  readonly store: AspectStore;
  readonly registry: EntityRegistry;
  readonly reader: EntityReader;
}

/** The most URNs one `listUrns` page holds. */
const MAX_LIST_URNS = 10_000;

/**
 * The primary store's listings and counts: `listUrns` and `exists` of DataHub's `/entities`, `getCount` of `/aspects`,
 * and the legacy batch get `GET /entities?ids=List(…)`. They read the store, so they are exact at once (no index lag)
 * and count soft-deleted entities too, as DataHub's SQL reads do.
 */
export function listingRoutes(options: ListingRouteOptions): Route[] {
  const { store, registry, reader } = options;
  return [
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'listUrns',
      family: 'restli',
      access: {
        kind: 'resource',
        group: 'ENTITY',
        operations: ['READ'],
        resource: { in: 'bodyTypes', names: ['entity'] },
        message: 'User is unauthorized to search.',
      },
      summary:
        'A page of the URNs of every entity of a type, in URN order, with the total: DataHub’s `ListUrnsResult`.',
      example: { body: { entity: 'dataset', start: 0, count: 100 } },
      description:
        'Read from the primary store: every entity that has its key aspect, soft-deleted ones included. `count` is ' +
        `how many this page holds (at most ${MAX_LIST_URNS} asked); \`total\` how many there are.`,
      body: z.object({
        entity: z.string().min(1),
        start: z.number().int('start must be an integer').min(0, 'start must be ≥ 0').default(0),
        count: z
          .number()
          .int('count must be an integer')
          .min(0, 'count must be ≥ 0')
          .max(MAX_LIST_URNS, `count must be ≤ ${MAX_LIST_URNS}`)
          .default(100),
      }),
      handle: async ({ body }) => {
        const entity = registry.entity(body.entity);
        if (entity === undefined) throw new BadRequestError(`Unknown entity: ${body.entity}`);
        const page = await store.listUrns({
          urnPrefix: `urn:li:${entity.name}:`,
          keyAspect: entity.keyAspect.name,
          start: body.start,
          count: body.count,
        });
        return {
          body: { value: { entities: page.urns, start: body.start, count: page.urns.length, total: page.total } },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'exists',
      family: 'restli',
      access: {
        kind: 'resource',
        group: 'ENTITY',
        operations: ['EXISTS'],
        resource: { in: 'body', name: 'urn' },
        message: 'User is unauthorized check entity existence: {resource}',
      },
      summary: 'Whether an entity exists: its key aspect is stored.',
      example: { body: { urn: 'urn:li:corpuser:datahub' } },
      description: '`includeSoftDelete` (default true): false answers false for an entity whose `status` says removed.',
      body: z.object({ urn: z.string().min(1), includeSoftDelete: z.boolean().nullish() }),
      handle: async ({ body }) => {
        const { urn, entity } = reader.resolve(body.urn);
        const key = { urn: urn.toString(), aspect: entity.keyAspect.name };
        const status = { urn: urn.toString(), aspect: 'status' };
        const found = await store.getLatest(body.includeSoftDelete === false ? [key, status] : [key]);
        const keyRow = found.find((row) => row.aspect === key.aspect);
        const removed = found.find((row) => row.aspect === 'status')?.value['removed'] === true;
        return { body: { value: keyRow !== undefined && !(body.includeSoftDelete === false && removed) } };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/aspects',
      action: 'getCount',
      family: 'restli',
      // DataHub's COUNTS READ (`GET_COUNTS_PRIVILEGE`) on no type in particular: on every type.
      access: {
        kind: 'resource',
        group: 'COUNTS',
        operations: ['READ'],
        resource: { in: 'bodyTypes', names: ['entity'] },
        message: 'User is unauthorized to get aspect counts.',
      },
      summary: 'How many entities have a value of an aspect, optionally of the URNs a pattern selects.',
      example: { body: { aspect: 'status', urnLike: 'urn:li:dataset:%' } },
      description:
        '`urnLike` is SQL LIKE when it holds `%` (`%` any run, `_` any one character, `\\` escapes), else a regular ' +
        'expression the whole URN must match, as for `restoreIndices`.',
      body: z.object({ aspect: z.string().min(1), urnLike: z.string().min(1).nullish() }),
      handle: async ({ body }) => {
        const pattern = body.urnLike ? compileUrnPattern(body.urnLike) : undefined;
        const count = await store.countLatest({
          aspect: body.aspect,
          ...(pattern === undefined ? {} : { urnPrefix: pattern.prefix, urnMatches: pattern.matches }),
        });
        return { body: { value: count } };
      },
    }),
    defineRoute({
      method: 'GET',
      resource: '/entities',
      family: 'restli',
      access: {
        kind: 'resource',
        group: 'ENTITY',
        operations: ['READ'],
        resource: { in: 'query', name: 'ids', list: true },
        message: 'User is unauthorized to get entities {resource}',
      },
      summary: 'Latest aspects of several entities as legacy snapshots (Rest.li batch get, deprecated).',
      description:
        'Answers `{results: {<id>: {value: {<snapshot>: …}}}, statuses, errors}`; an id that is no readable URN is ' +
        'answered in `errors`.',
      query: z.object({
        ids: restliListParam().pipe(z.array(z.string()).min(1).max(1000)),
        aspects: restliListParam().optional(),
      }),
      handle: async ({ query }) => ({ body: await batchRead(reader, query.ids, query.aspects, snapshotBody) }),
    }),
  ];
}
