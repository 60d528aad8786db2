import type { ResolverMap } from '../schema';

export const searchResolvers: ResolverMap = {};
