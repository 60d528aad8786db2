import type { ResourceFacts } from '@strata/auth';
import type { RequestContext, RouteCaller } from '@strata/http';
import { parseUrn, type EntityRegistry } from '@strata/model';

/** The aspects policies' owner clauses and filters read, by the filter field each feeds. */
const FACT_ASPECTS = ['ownership', 'globalTags', 'domains', 'container', 'glossaryTerms', 'dataPlatformInstance'];
const CHUNK = 25;

type Aspects = Readonly<Record<string, { readonly value?: Record<string, unknown> } | undefined>>;

/**
 * Reads what policies may ask of entities beyond their type and URN — owners (with their ownership types), tags,
 * domains, the container, glossary terms, the platform instance — from the writer's latest values, as the system
 * actor, a few entities per read. Entities of a type this deployment does not know are left out.
 */
export function resourceFactsReader(registry: EntityRegistry, call: RouteCaller, context: RequestContext) {
  return async (urns: readonly string[]): Promise<ReadonlyMap<string, ResourceFacts>> => {
    const byType = new Map<string, string[]>();
    for (const urn of urns) {
      let type: string;
      try {
        type = parseUrn(urn).entityType;
      } catch {
        continue;
      }
      byType.set(type, [...(byType.get(type) ?? []), urn]);
    }
    const facts = new Map<string, ResourceFacts>();
    for (const [type, ofType] of byType) {
      const entity = registry.entity(type);
      if (entity === undefined) continue;
      const aspects = FACT_ASPECTS.filter((name) => entity.aspect(name) !== undefined);
      for (let index = 0; index < ofType.length; index += CHUNK) {
        const ids = ofType.slice(index, index + CHUNK);
        const body = (await call(
          { method: 'GET', resource: '/entitiesV2', query: { ids, ...(aspects.length > 0 ? { aspects } : {}) } },
          context,
        )) as { results?: Record<string, { aspects?: Aspects }> };
        for (const urn of ids) facts.set(urn, factsOf(type, urn, body.results?.[urn]?.aspects ?? {}));
      }
    }
    return facts;
  };
}

function factsOf(type: string, urn: string, aspects: Aspects): ResourceFacts {
  const value = (name: string) => aspects[name]?.value ?? {};
  const list = (items: unknown, pick: (item: Record<string, unknown>) => unknown): string[] =>
    Array.isArray(items)
      ? items.flatMap((item) => {
          const picked = typeof item === 'string' ? item : pick((item ?? {}) as Record<string, unknown>);
          return typeof picked === 'string' ? [picked] : [];
        })
      : [];
  const owners = (Array.isArray(value('ownership')['owners']) ? (value('ownership')['owners'] as unknown[]) : [])
    .map((owner) => owner as { owner?: unknown; typeUrn?: unknown })
    .filter((owner): owner is { owner: string; typeUrn?: unknown } => typeof owner.owner === 'string')
    .map((owner) => ({ owner: owner.owner, ...(typeof owner.typeUrn === 'string' ? { typeUrn: owner.typeUrn } : {}) }));
  const single = (item: unknown) => (typeof item === 'string' ? [item] : []);
  return {
    type,
    urn,
    owners,
    fields: {
      TAG: list(value('globalTags')['tags'], (item) => item['tag']),
      DOMAIN: list(value('domains')['domains'], () => undefined),
      CONTAINER: single(value('container')['container']),
      GLOSSARY: list(value('glossaryTerms')['terms'], (item) => item['urn']),
      DATA_PLATFORM_INSTANCE: single(value('dataPlatformInstance')['instance']),
    },
  };
}
