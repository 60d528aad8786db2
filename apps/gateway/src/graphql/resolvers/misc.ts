import type { ResolverMap } from '../schema';

export const miscResolvers: ResolverMap = {};
