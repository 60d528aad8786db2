/**
 * The root queries that answer entities by URN: `entity`, `entities`, `entityExists`, `versionedDataset` and one query
 * per entity type. As DataHub, a URN of an entity type the API knows answers that entity even when nothing was ever
 * stored for it (its key fields answer, every aspect is null, `exists` is false); a per-type query given a URN of
 * another type answers null; a text that is no URN is a 400.
 */
import { BadRequestError, InvalidUrnError, parseUrn, type Urn } from '@strata/model';
import type { GraphqlContext } from '../context';
import { objectTypeOf } from '../entity-types';
import { entityRef, type EntityRef, type FieldResolver, type ResolverMap } from '../schema';
import { recordOf } from './entities-values';
import { presenceOf, type EntitySource } from './entities-view';
import type { LoadedEntity } from '../context';

/** The query of each entity type, with the entity name it answers. */
export const TYPED_QUERIES: Readonly<Record<string, string>> = {
  dataset: 'dataset',
  chart: 'chart',
  dashboard: 'dashboard',
  dataJob: 'dataJob',
  dataFlow: 'dataFlow',
  container: 'container',
  corpUser: 'corpuser',
  corpGroup: 'corpGroup',
  tag: 'tag',
  glossaryTerm: 'glossaryTerm',
  glossaryNode: 'glossaryNode',
  domain: 'domain',
  dataProduct: 'dataProduct',
  mlModel: 'mlModel',
  mlModelGroup: 'mlModelGroup',
  mlFeatureTable: 'mlFeatureTable',
  mlFeature: 'mlFeature',
  mlPrimaryKey: 'mlPrimaryKey',
  dataPlatform: 'dataPlatform',
  dataPlatformInstance: 'dataPlatformInstance',
};

/** A URN argument parsed; a 400 for a text that is no URN. */
function parsed(urn: string): Urn {
  try {
    return parseUrn(urn);
  } catch (error) {
    if (error instanceof InvalidUrnError) throw new BadRequestError(error.message, { cause: error });
    throw error;
  }
}

/** The entity of a URN the API serves; a 400 for an entity type it does not serve. */
function servedRef(urn: string): EntityRef {
  const entityType = parsed(urn).entityType;
  const ref = entityRef(urn);
  if (ref === undefined || objectTypeOf(entityType) === undefined) {
    throw new BadRequestError(`Entities of type ${entityType} are not served by the GraphQL API (${urn})`);
  }
  return ref;
}

/**
 * The entity, once read as the caller (a refused read is this field's 403); null when the read knows no entity of
 * that type.
 */
async function read(ref: EntityRef, context: GraphqlContext): Promise<EntityRef | null> {
  return (await context.entities.load(ref.urn)) === null ? null : ref;
}

function typedQuery(entityName: string): FieldResolver {
  return (_source, args: { urn: string }, context: GraphqlContext) => {
    if (parsed(args.urn).entityType !== entityName) return null;
    return read(servedRef(args.urn), context);
  };
}

/**
 * `versionedDataset`: the dataset with each aspect its stamp names at that version (DataHub's
 * `aspect:version;aspect:version`, 0 the latest), or every aspect at its latest without one, read as the caller
 * through `GET /entitiesVersionedV2`.
 */
const versionedDataset: FieldResolver = async (
  _source,
  args: { urn: string; versionStamp?: string | null },
  context: GraphqlContext,
) => {
  if (parsed(args.urn).entityType !== 'dataset') return null;
  const ref = servedRef(args.urn);
  const body = recordOf(
    await context.call(
      {
        method: 'GET',
        resource: '/entitiesVersionedV2',
        query: { ids: [`(${args.urn} , ${args.versionStamp ?? ''})`], entityType: 'dataset' },
      },
      context.request,
    ),
  );
  const found = recordOf(recordOf(body?.['results'])?.[args.urn]);
  if (found === undefined) return null;
  const source: EntitySource = {
    ...ref,
    preloaded: {
      urn: args.urn,
      entityName: 'dataset',
      aspects: (recordOf(found['aspects']) ?? {}) as LoadedEntity['aspects'],
    },
  };
  return source;
};

export const entityQueryResolvers: ResolverMap = {
  Query: {
    entity: (_source, args: { urn: string }, context: GraphqlContext) => read(servedRef(args.urn), context),
    entities: async (
      _source,
      args: { urns: readonly string[]; checkForExistence?: boolean | null },
      context: GraphqlContext,
    ) => {
      for (const urn of args.urns) parsed(urn);
      let urns = args.urns;
      if (args.checkForExistence === true) {
        const presence = await Promise.all(urns.map((urn) => presenceOf(context, urn)));
        urns = urns.filter((_, index) => presence[index]?.exists === true);
      }
      // Each entity apart: one that fails (not served, refused) is null with its own error.
      return urns.map(async (urn) => read(servedRef(urn), context));
    },
    entityExists: async (_source, args: { urn: string }, context: GraphqlContext) => {
      parsed(args.urn);
      const body = recordOf(
        await context.call(
          { method: 'POST', resource: '/entities', action: 'exists', body: { urn: args.urn } },
          context.request,
        ),
      );
      return body?.['value'] === true;
    },
    versionedDataset,
    ...Object.fromEntries(Object.entries(TYPED_QUERIES).map(([query, entityName]) => [query, typedQuery(entityName)])),
  },
};
