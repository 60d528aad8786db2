import type { ResolverMap } from '../schema';

export const lineageResolvers: ResolverMap = {};
