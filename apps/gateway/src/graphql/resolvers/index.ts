import type { ResolverMap } from '../schema';
import { entitiesResolvers } from './entities';
import { lineageResolvers } from './lineage';
import { miscResolvers } from './misc';
import { mutationsResolvers } from './mutations';
import { authConfigResolvers } from './privileges';
import { searchResolvers } from './search';

/** Every resolver of the GraphQL API, by area. */
export const RESOLVERS: readonly ResolverMap[] = [
  entitiesResolvers,
  searchResolvers,
  lineageResolvers,
  mutationsResolvers,
  miscResolvers,
  authConfigResolvers,
];
