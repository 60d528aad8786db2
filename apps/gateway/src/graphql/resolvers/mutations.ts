import type { ResolverMap } from '../schema';
import { docsMutations } from './mutations-docs';
import { labelMutations } from './mutations-labels';
import { lifecycleMutations } from './mutations-lifecycle';
import { ownerMutations } from './mutations-owners';
import { tokenMutations } from './mutations-tokens';

/**
 * Every field of `Mutation`: curation (tags, terms, owners, descriptions, links, domains, deprecation, soft deletion)
 * and personal access tokens. Each answers as DataHub's does — `true`, or the token — and writes through the gateway's
 * write path as the caller (see `mutations-support.ts`).
 */
export const mutationsResolvers: ResolverMap = {
  Mutation: {
    ...labelMutations,
    ...ownerMutations,
    ...docsMutations,
    ...lifecycleMutations,
    ...tokenMutations,
  },
};
