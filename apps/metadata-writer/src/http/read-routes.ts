import { z } from 'zod';
import {
  defineRoute,
  restliErrorBody,
  restliListParam,
  toClientError,
  type Route,
  type RouteAccess,
} from '@strata/http';
import { StrataError } from '@strata/model';
import type { EntityReader, ReadAspect, ReadEntity, ResolvedUrn } from '../reads/entity-reader';

const urnKey = { name: 'urn', description: 'Entity URN, raw or percent-encoded.' };

/** Reading the entity named in the path: DataHub's ENTITY READ privilege on it (with authentication on). */
const readAccess = (message: string): RouteAccess => ({
  kind: 'resource',
  group: 'ENTITY',
  operations: ['READ'],
  resource: { in: 'key' },
  message,
});

/** The primary-store reads the writer owns: `GET /entitiesV2`, `GET /entities`, `GET /aspects`. */
export function readRoutes(reader: EntityReader): Route[] {
  return [
    defineRoute({
      method: 'GET',
      resource: '/entitiesV2',
      key: urnKey,
      family: 'restli',
      access: readAccess('User is unauthorized to get entity {resource}'),
      summary: 'Latest aspects of an entity (version 2 shape).',
      description: 'The key aspect is always included; `aspects=List(a,b)` limits the other aspects returned.',
      query: z.object({ aspects: restliListParam().optional() }),
      handle: async ({ query, key }) => ({ body: entityV2Body(await reader.getEntity(key ?? '', query.aspects)) }),
    }),
    defineRoute({
      method: 'GET',
      resource: '/entitiesV2',
      family: 'restli',
      access: {
        kind: 'resource',
        group: 'ENTITY',
        operations: ['READ'],
        resource: { in: 'query', name: 'ids', list: true },
        message: 'User is unauthorized to get entities {resource}',
      },
      summary: 'Latest aspects of several entities (Rest.li batch get).',
      description:
        'An id that is no readable URN (malformed, of an unknown entity type, too long) is answered in `errors` under the id as given, with its Rest.li error; the other ids are answered in `results`. An unknown aspect in `aspects` fails the whole request.',
      query: z.object({
        ids: restliListParam().pipe(z.array(z.string()).min(1).max(1000)),
        aspects: restliListParam().optional(),
      }),
      handle: async ({ query }) => ({ body: await batchRead(reader, query.ids, query.aspects, entityV2Body) }),
    }),
    defineRoute({
      method: 'GET',
      resource: '/entities',
      key: urnKey,
      family: 'restli',
      access: readAccess('User is unauthorized to get entity {resource}'),
      summary: 'Latest aspects of an entity as a legacy snapshot (deprecated).',
      query: z.object({ aspects: restliListParam().optional() }),
      handle: async ({ query, key }) => ({ body: snapshotBody(await reader.getEntity(key ?? '', query.aspects)) }),
    }),
    defineRoute({
      method: 'GET',
      resource: '/aspects',
      key: urnKey,
      family: 'restli',
      access: readAccess('User is unauthorized to get aspect for {resource}'),
      summary: 'One version of one aspect: 0 (the default) is the latest; negative counts back from it.',
      example: { query: { aspect: 'datasetProperties', version: '0' } },
      query: z.object({
        aspect: z.string().min(1),
        version: z.coerce.number().int().default(0),
      }),
      handle: async ({ query, key }) => {
        const found = await reader.getVersion(key ?? '', query.aspect, query.version);
        return { body: { version: found.requested, aspect: { [found.spec.recordName]: found.value } } };
      },
    }),
  ];
}

/**
 * A Rest.li batch get of entities: `{results, statuses, errors}`. An id that is no readable URN (malformed, of an unknown
 * entity type, too long) is answered in `errors` under the id as given, with its Rest.li error; the others in `results`,
 * as `toBody` renders them.
 */
export async function batchRead(
  reader: EntityReader,
  ids: readonly string[],
  aspects: readonly string[] | undefined,
  toBody: (entity: ReadEntity) => unknown,
): Promise<Record<string, unknown>> {
  // Entries, not assignments: an id such as "__proto__" must stay an ordinary key of the answer.
  const results: [string, unknown][] = [];
  const errors: [string, unknown][] = [];
  for (const id of ids) {
    let resolved: ResolvedUrn;
    try {
      resolved = reader.resolve(id);
    } catch (error) {
      if (!(error instanceof StrataError)) throw error;
      errors.push([id, restliErrorBody(toClientError(error))]);
      continue;
    }
    results.push([id, toBody(await reader.getEntity(resolved, aspects))]);
  }
  return { results: Object.fromEntries(results), statuses: {}, errors: Object.fromEntries(errors) };
}

function entityV2Body({ urn, entity, aspects }: ReadEntity): Record<string, unknown> {
  return {
    urn: urn.toString(),
    entityName: entity.name,
    aspects: Object.fromEntries(aspects.map((aspect) => [aspect.spec.name, envelopedAspect(aspect)])),
  };
}

function envelopedAspect(aspect: ReadAspect): Record<string, unknown> {
  return {
    name: aspect.spec.name,
    type: 'VERSIONED',
    version: 0,
    value: aspect.value,
    ...(aspect.created ? { created: aspect.created } : {}),
    ...(aspect.systemMetadata ? { systemMetadata: aspect.systemMetadata } : {}),
  };
}

/**
 * The legacy snapshot: `{value: {<snapshot record>: {urn, aspects: [{<aspect record>: value}]}}}`, key aspect first.
 * The glossary term snapshot also carries each aspect as a direct member named after it (`glossaryTermInfo`,
 * `ownership`), the shape DataHub's documentation shows for it.
 */
export function snapshotBody({ urn, entity, aspects }: ReadEntity): Record<string, unknown> {
  const snapshot: Record<string, unknown> = {
    urn: urn.toString(),
    aspects: aspects.map((aspect) => ({ [aspect.spec.recordName]: aspect.value })),
  };
  if (entity.name === 'glossaryTerm') {
    for (const aspect of aspects) if (!aspect.spec.isKey) snapshot[aspect.spec.name] = aspect.value;
  }
  const snapshotName = entity.snapshotRecordName ?? `com.linkedin.metadata.snapshot.${upperFirst(entity.name)}Snapshot`;
  return { value: { [snapshotName]: snapshot } };
}

function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
