import type { ResolverMap } from '../schema';

export const entitiesResolvers: ResolverMap = {};
