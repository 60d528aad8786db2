import type { RequestContext, RouteCaller } from '@strata/http';
import type { EntityRegistry } from '@strata/model';
import { testsInForce, type EntityState, type MetadataTest, type StoredTest } from '../domain/test-results';

/** The most entities one read names (the writer's limit). */
const NAMED_PER_CALL = 1_000;

/** A page of a scan of the entities of one type. */
export interface EntityPage {
  readonly entities: readonly EntityState[];
  /** The URN to continue after; null when the page is empty. */
  readonly last: string | null;
  readonly exhausted: boolean;
}

/** What metadata tests read, always through the owners' routes (the writer's store, the search index's counts). */
export interface TestReads {
  /** The tests in force (stored, not removed, parsing against the registry). */
  tests(context: RequestContext): Promise<MetadataTest[]>;
  /** Each named entity that has something stored, whole; the others are absent. */
  entities(urns: readonly string[], context: RequestContext): Promise<EntityState[]>;
  /** A page of every entity of a type, whole, after `after`. */
  scan(entityType: string, after: string | undefined, limit: number, context: RequestContext): Promise<EntityPage>;
  /** How many entities of a type search counts (soft-deleted ones aside): an estimate of a scan's length. */
  count(entityType: string, context: RequestContext): Promise<number>;
}

interface WireEntity {
  readonly urn: string;
  readonly aspects: Readonly<Record<string, { readonly value: unknown }>>;
}

/** {@link TestReads} over the routes of the writer and the search indexer, in-process or forwarded. */
export function testReads(
  registry: EntityRegistry,
  call: RouteCaller,
  logger: { warn(details: object, message: string): void },
): TestReads {
  const stateOf = (entity: WireEntity): EntityState => ({
    urn: entity.urn,
    aspects: Object.fromEntries(Object.entries(entity.aspects).map(([name, aspect]) => [name, aspect.value])),
  });
  return {
    async tests(context) {
      const { tests } = (await call({ method: 'GET', resource: '/internal/metadata-tests' }, context)) as {
        tests: readonly StoredTest[];
      };
      return testsInForce(registry, tests, (urn, reason) => {
        logger.warn({ test: urn, reason }, 'a stored metadata test no longer parses: it is not evaluated');
      });
    },
    async entities(urns, context) {
      const found: EntityState[] = [];
      for (let start = 0; start < urns.length; start += NAMED_PER_CALL) {
        const { entities } = (await call(
          {
            method: 'POST',
            resource: '/internal/entities/latest',
            body: { urns: urns.slice(start, start + NAMED_PER_CALL) },
          },
          context,
        )) as { entities: readonly WireEntity[] };
        found.push(...entities.map(stateOf));
      }
      return found;
    },
    async scan(entityType, after, limit, context) {
      const page = (await call(
        { method: 'POST', resource: '/internal/entities/latest', body: { entityType, after, limit } },
        context,
      )) as { entities: readonly WireEntity[]; last: string | null; exhausted: boolean };
      return { entities: page.entities.map(stateOf), last: page.last, exhausted: page.exhausted };
    },
    async count(entityType, context) {
      const answer = (await call(
        {
          method: 'POST',
          resource: '/entities',
          action: 'search',
          body: { input: '*', entity: entityType, start: 0, count: 0 },
        },
        context,
      )) as { value?: { numEntities?: number } };
      return answer.value?.numEntities ?? 0;
    },
  };
}
