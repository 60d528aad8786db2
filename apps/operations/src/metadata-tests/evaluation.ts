import type { RequestContext } from '@strata/http';
import {
  BadRequestError,
  InvalidUrnError,
  NotFoundError,
  TEST_RESULTS_ASPECT,
  type EntityRegistry,
} from '@strata/model';
import {
  entityTypeOf,
  mergeOutcomes,
  outcomesOf,
  resultsValue,
  storedOutcomes,
  type Outcomes,
  type TestResult,
} from '../domain/test-results';
import type { TestReads } from './test-reads';

/** What evaluate and batchEvaluate ask. */
export interface EvaluationRequest {
  readonly urns: readonly string[];
  /** Only these tests; every test in force when absent. */
  readonly tests?: readonly string[];
  /** Whether to compute the `testResults` values to store. */
  readonly push: boolean;
}

/** A `testResults` value to store, on the caller's behalf. */
export interface ResultsPush {
  readonly urn: string;
  readonly entityType: string;
  readonly aspectName: typeof TEST_RESULTS_ASPECT;
  readonly value: { passing: TestResult[]; failing: TestResult[] };
}

export interface Evaluation {
  /** The outcomes of the tests evaluated, per URN, in the order asked. */
  readonly results: ReadonlyMap<string, Outcomes>;
  /** When pushing: each entity's new `testResults` (the evaluated tests' outcomes over those stored of the others). */
  readonly pushes: readonly ResultsPush[];
}

/**
 * Evaluates tests on named entities, read whole from the writer. With `tests`, those tests only (each must exist: 404
 * naming the first that does not); otherwise every test in force. A test whose `on` does not select an entity is in
 * neither list. An entity with nothing stored is a 404 naming it. Nothing is written here: the pushes are returned for
 * the caller to submit as ordinary proposals.
 */
export async function evaluateEntities(
  registry: EntityRegistry,
  reads: TestReads,
  request: EvaluationRequest,
  stamp: { readonly time: number; readonly actor: string },
  context: RequestContext,
): Promise<Evaluation> {
  const types = new Map(request.urns.map((urn) => [urn, typeOrRefuse(registry, urn)]));
  const inForce = await reads.tests(context);
  let tests = inForce;
  if (request.tests !== undefined) {
    const byUrn = new Map(inForce.map((test) => [test.urn, test]));
    tests = [...new Set(request.tests)].map((urn) => {
      const test = byUrn.get(urn);
      if (test === undefined) throw new NotFoundError(`Test ${urn} not found`);
      return test;
    });
  }
  const entities = new Map((await reads.entities([...types.keys()], context)).map((entity) => [entity.urn, entity]));
  const results = new Map<string, Outcomes>();
  const pushes: ResultsPush[] = [];
  const evaluated = new Set(tests.map((test) => test.urn));
  for (const [urn, entityType] of types) {
    const entity = entities.get(urn);
    if (entity === undefined) throw new NotFoundError(`Entity ${urn} not found`);
    const computed = outcomesOf(entityType, entity, tests);
    results.set(urn, computed);
    if (!request.push) continue;
    // Every test evaluated: the outcome replaces what was stored; some tests only: theirs replace their own.
    const next =
      request.tests === undefined
        ? computed
        : mergeOutcomes(storedOutcomes(entity.aspects[TEST_RESULTS_ASPECT]), computed, evaluated);
    pushes.push({ urn, entityType, aspectName: TEST_RESULTS_ASPECT, value: resultsValue(next, stamp, evaluated) });
  }
  return { results, pushes };
}

function typeOrRefuse(registry: EntityRegistry, urn: string): string {
  let type: string | undefined;
  try {
    type = entityTypeOf(registry, urn);
  } catch (error) {
    if (error instanceof InvalidUrnError) throw new BadRequestError(`Invalid urn ${urn}: ${error.message}`);
    throw error;
  }
  if (type === undefined) throw new NotFoundError(`Entity ${urn} not found: no entity type of that name`);
  return type;
}
