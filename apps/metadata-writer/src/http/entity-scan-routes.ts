import { z } from 'zod';
import { defineRoute, type Route } from '@strata/http';
import { BadRequestError, METADATA_TEST_ASPECT, type EntityRegistry } from '@strata/model';
import type { AspectStore, ScannedEntity } from '@strata/store';
import { allLatest } from '../reads/latest-values';

/** The most entities one scan call answers. */
export const MAX_SCANNED_ENTITIES = 5_000;
/** The most entities one call names. */
export const MAX_NAMED_ENTITIES = 1_000;

const latestBody = z.union([
  z.object({
    urns: z.array(z.string().min(1)).min(1).max(MAX_NAMED_ENTITIES),
    /** Only these aspects of each entity (an entity with none of them is absent). */
    aspects: z.array(z.string().min(1)).min(1).max(100).optional(),
  }),
  z.object({
    entityType: z.string().min(1),
    after: z.string().optional(),
    limit: z.number().int().min(1).max(MAX_SCANNED_ENTITIES),
  }),
]);

/** An entity as the scan routes answer it: the stored latest value of each aspect, by name, with its version. */
export interface EntityAspects {
  readonly urn: string;
  readonly aspects: Readonly<Record<string, { readonly value: unknown; readonly version: number }>>;
}

/**
 * Whole entities read straight from the primary store, under `/internal/` (never forwarded to clients): the entities
 * a metadata test is evaluated against — named ones, or every entity of a type page by page — and the tests
 * themselves. Unlike the public reads, an entity nothing was stored for is absent rather than answered with its key.
 */
export function entityScanRoutes(store: AspectStore, registry: EntityRegistry): Route[] {
  return [
    defineRoute({
      method: 'POST',
      resource: '/internal/entities/latest',
      family: 'openapi',
      access: { kind: 'internal' },
      summary:
        'Named entities (`urns`, whole or only some `aspects`), or a page of every entity of a type (`entityType`, `after`, `limit`), whole.',
      body: latestBody,
      handle: async ({ body }) => {
        if ('urns' in body) {
          const entities: EntityAspects[] = [];
          for (const urn of new Set(body.urns)) {
            const rows = await store.getEntity(urn, body.aspects);
            if (rows.length > 0) entities.push(entityOf({ urn, aspects: rows }));
          }
          return { body: { entities } };
        }
        const entity = registry.entity(body.entityType);
        if (entity === undefined) throw new BadRequestError(`Unknown entity type: ${body.entityType}`);
        const page = await store.scanEntities({
          urnPrefix: `urn:li:${entity.name}:`,
          limit: body.limit,
          ...(body.after === undefined ? {} : { afterUrn: body.after }),
        });
        return {
          body: {
            entities: page.map(entityOf),
            last: page[page.length - 1]?.urn ?? null,
            exhausted: page.length < body.limit,
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      resource: '/internal/metadata-tests',
      family: 'openapi',
      access: { kind: 'internal' },
      summary: 'Every metadata test: its URN, the latest version and value of its testInfo, and whether it is removed.',
      handle: async () => {
        const rows = await allLatest(store, METADATA_TEST_ASPECT);
        const statuses = await store.getLatest(rows.map((row) => ({ urn: row.urn, aspect: 'status' })));
        const removed = new Set(statuses.filter((row) => row.value['removed'] === true).map((row) => row.urn));
        return {
          body: {
            tests: rows.map((row) => ({
              urn: row.urn,
              version: row.version,
              info: row.value,
              removed: removed.has(row.urn),
            })),
          },
        };
      },
    }),
  ];
}

function entityOf(entity: ScannedEntity): EntityAspects {
  const aspects: Record<string, { value: unknown; version: number }> = {};
  for (const row of entity.aspects) {
    aspects[row.aspect] = { value: row.value, version: row.version };
  }
  return { urn: entity.urn, aspects };
}
