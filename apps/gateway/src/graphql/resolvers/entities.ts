import type { ResolverMap } from '../schema';
import { entityFieldResolvers } from './entities-fields';
import { entityQueryResolvers } from './entities-queries';
import { privilegesFieldResolvers } from './privileges';

/**
 * The entities of the GraphQL API: the fields of every entity type served (`entities-fields.ts`, mapped from aspects
 * in `entities-values.ts`, read through `entities-view.ts` and `entities-reads.ts`) and the root queries answering
 * entities by URN (`entities-queries.ts`), and what the caller may do to each (`privileges`, `privileges.ts`).
 */
export const entitiesResolvers: ResolverMap = {
  ...Object.fromEntries(
    Object.entries(entityFieldResolvers).map(([type, fields]) => [
      type,
      { ...fields, ...privilegesFieldResolvers[type] },
    ]),
  ),
  ...entityQueryResolvers,
};
