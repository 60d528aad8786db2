import type { ResolverMap } from '../schema';

export const mutationsResolvers: ResolverMap = {};
