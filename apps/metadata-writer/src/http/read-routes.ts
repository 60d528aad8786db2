import { z } from 'zod';
import {
  defineRoute,
  restliErrorBody,
  restliListParam,
  toClientError,
  type Route,
  type RouteAccess,
} from '@strata/http';
import { BadRequestError, parseVersionedUrnKey, parseVersionStamp, StrataError } from '@strata/model';
import type { EntityReader, ReadAspect, ReadEntity, ReadVersionedEntity } from '../reads/entity-reader';

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
      resource: '/entitiesVersionedV2',
      family: 'restli',
      access: {
        kind: 'resource',
        group: 'ENTITY',
        operations: ['READ'],
        resource: { in: 'query', name: 'ids', list: true, versioned: true },
        message: 'User is unauthorized to get entities {resource}',
      },
      summary: 'Several entities, each at the versions its key names (Rest.li batch get of versioned URNs).',
      description:
        'Each id is a versioned key `(<urn> , <versionStamp>)`, percent-encoded in `List(…)` as Rest.li 2.0 clients ' +
        'encode it; the stamp is `aspect:version` pairs joined by `;`, versions numbered as in `GET /aspects` (0 the ' +
        'latest, 1 the oldest). A URN with a stamp answers the aspects of `aspects` the stamp names, each at its ' +
        'version (one never written is left out); a URN with an empty stamp answers every aspect of `aspects` at ' +
        'its latest. `aspects` defaults to every aspect of `entityType`. The key aspect is always there. Results are ' +
        'keyed by the plain URN, in the shape of `GET /entitiesV2?ids=…`, each aspect with the version it answers. A ' +
        'key or stamp that does not parse, an unknown entity type or aspect, or one URN named twice fails the whole ' +
        'request; a URN that is no readable one, or not of `entityType`, is answered in `errors` under its key.',
      example: {
        query: {
          ids: 'List((urn:li:corpuser:datahub , corpUserInfo:1;corpUserKey:0))',
          entityType: 'corpuser',
          aspects: 'List(corpUserInfo)',
        },
      },
      query: z.object({
        ids: restliListParam().pipe(z.array(z.string()).min(1).max(1000)),
        entityType: z.string({ error: 'entityType is required' }).min(1, 'entityType must not be empty'),
        aspects: restliListParam().optional(),
      }),
      handle: async ({ query }) => ({
        body: await versionedBatchRead(reader, query.ids, query.entityType, query.aspects),
      }),
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
  return batchAnswer(
    ids,
    (id) => reader.resolve(id),
    async (resolved, id) => [id, toBody(await reader.getEntity(resolved, aspects))],
  );
}

/**
 * The core of every Rest.li batch get: `resolve` reads each id — a typed error it throws answers that id in `errors`,
 * with its Rest.li error — and `read` answers the others, under the key it chooses, in `results`. Anything `read`
 * throws fails the whole request.
 */
async function batchAnswer<T>(
  ids: readonly string[],
  resolve: (id: string) => T,
  read: (resolved: T, id: string) => Promise<readonly [key: string, body: unknown]>,
): Promise<Record<string, unknown>> {
  // Entries, not assignments: an id such as "__proto__" must stay an ordinary key of the answer.
  const results: (readonly [string, unknown])[] = [];
  const errors: [string, unknown][] = [];
  for (const id of ids) {
    let resolved: T;
    try {
      resolved = resolve(id);
    } catch (error) {
      if (!(error instanceof StrataError)) throw error;
      errors.push([id, restliErrorBody(toClientError(error))]);
      continue;
    }
    results.push(await read(resolved, id));
  }
  return { results: Object.fromEntries(results), statuses: {}, errors: Object.fromEntries(errors) };
}

/**
 * DataHub's versioned batch get (`EntityVersionedV2Resource`): every key and stamp is read first, so that one that
 * does not parse fails the request before anything is read; then each URN as {@link batchRead} reads it, at its
 * stamp's versions, keyed by the URN.
 */
async function versionedBatchRead(
  reader: EntityReader,
  ids: readonly string[],
  entityType: string,
  aspects: readonly string[] | undefined,
): Promise<Record<string, unknown>> {
  const entity = reader.entityType(entityType);
  const projection = aspects ?? entity.aspects.map((spec) => spec.name);
  for (const name of projection) reader.aspectOf(entity, name);
  const keys = new Map(
    ids.map((id) => {
      const key = parseVersionedUrnKey(id);
      return [id, { urn: key.urn, stamp: parseVersionStamp(key.versionStamp) }] as const;
    }),
  );
  const named = new Set<string>();
  for (const { urn } of keys.values()) {
    if (named.has(urn)) throw new BadRequestError(`The URN ${urn} is named by more than one key`);
    named.add(urn);
  }
  return batchAnswer(
    ids,
    (id) => {
      const key = keys.get(id);
      if (key === undefined) throw new Error(`The key ${id} was not read`);
      const resolved = reader.resolve(key.urn);
      if (resolved.entity.name !== entity.name) {
        throw new BadRequestError(`URN ${key.urn} is not of entity type ${entity.name}`);
      }
      return { resolved, stamp: key.stamp };
    },
    async ({ resolved, stamp }) => {
      const read = await reader.getEntityAtVersions(resolved, projection, stamp);
      return [resolved.urn.toString(), entityV2Body(read)];
    },
  );
}

/** DataHub's `EntityResponse`: each aspect at its latest (version 0), or at the version a versioned read answers. */
function entityV2Body(read: ReadEntity | ReadVersionedEntity): Record<string, unknown> {
  const { urn, entity, aspects } = read;
  const versions = 'versions' in read ? read.versions : undefined;
  return {
    urn: urn.toString(),
    entityName: entity.name,
    aspects: Object.fromEntries(
      aspects.map((aspect) => [aspect.spec.name, envelopedAspect(aspect, versions?.get(aspect.spec.name) ?? 0)]),
    ),
  };
}

function envelopedAspect(aspect: ReadAspect, version: number): Record<string, unknown> {
  return {
    name: aspect.spec.name,
    type: 'VERSIONED',
    version,
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
