import { z } from 'zod';
import { defineRoute, type RequestContext, type Route, type RouteAccess, type RouteCaller } from '@strata/http';
import { validateProposal, type EntityRegistry } from '@strata/model';
import type { ProposalSubmitter } from '../ingest/proposal-submitter';
import { SYNC_INDEX_HEADER } from './ingest-routes';

/** Where metadata tests answer: DataHub's path, its hosted docs' and its frontend proxy's. */
export const TEST_RESOURCES = ['/test', '/gms/test', '/api/gms/test'] as const;
/** Evaluating metadata tests needs MANAGE_TESTS, whether authentication is on or off. */
const MANAGE_TESTS_ACCESS: RouteAccess = {
  kind: 'privilege',
  anyOf: [['MANAGE_TESTS']],
  message: 'User is unauthorized to evaluate tests.',
  always: true,
};

/** The most URNs one batchEvaluate takes (the operations service's limit). */
export const MAX_BATCH_EVALUATE_URNS = 100;

export interface TestRouteOptions {
  readonly registry: EntityRegistry;
  readonly submitter: ProposalSubmitter;
  /** Calls the routes of the services behind the gateway: the operations service's evaluation. */
  readonly call: RouteCaller;
}

type Outcomes = {
  readonly passing: readonly { test: string; type: 'SUCCESS' }[];
  readonly failing: readonly { test: string; type: 'FAILURE' }[];
};

interface EvaluationAnswer {
  readonly results: Readonly<Record<string, Outcomes>>;
  readonly pushes: readonly {
    readonly urn: string;
    readonly entityType: string;
    readonly aspectName: string;
    readonly value: unknown;
  }[];
}

const testList = (name: string) =>
  z.array(z.string({ error: `${name} must be a list of test URNs` }), {
    error: `${name} must be a list of test URNs`,
  });
const flag = (name: string) => z.boolean({ error: `${name} must be a boolean` });

/** The options evaluate and batchEvaluate share: the tests (`testUrns`, or the older `tests`) and the push flag. */
const testOptions = {
  testUrns: testList('testUrns').optional(),
  tests: testList('tests').optional(),
  push: flag('push').optional(),
  shouldPush: flag('shouldPush').optional(),
};

const evaluateBody = z.object({
  urn: z.string({ error: "Parameter 'urn' is required: the URN of the entity to evaluate" }).min(1),
  ...testOptions,
});

const batchEvaluateBody = z.object({
  urns: z
    .array(z.string({ error: 'urns must be a list of URNs' }), {
      error: "Parameter 'urns' is required: the URNs of the entities to evaluate",
    })
    .min(1, 'urns must name at least one entity')
    .max(MAX_BATCH_EVALUATE_URNS, `urns may name at most ${MAX_BATCH_EVALUATE_URNS} entities`),
  ...testOptions,
});

/**
 * Metadata tests' evaluation: `evaluate` (one entity) and `batchEvaluate` (several), under each of
 * {@link TEST_RESOURCES}. The operations service evaluates; with `push` (or `shouldPush`), the gateway stores each
 * entity's outcome as its `testResults` aspect through an ordinary proposal of the caller, answered once the writer
 * applied it (and, with `X-DataHub-Sync-Index-Update: true`, once search and relationships show it).
 */
export function testRoutes(options: TestRouteOptions): Route[] {
  return TEST_RESOURCES.flatMap((resource) => [
    defineRoute({
      method: 'POST',
      resource,
      action: 'evaluate',
      family: 'restli',
      access: MANAGE_TESTS_ACCESS,
      summary: 'Evaluate metadata tests on an entity; with `push`, store the outcome as its testResults.',
      description:
        'Evaluates `testUrns` (also `tests`), or every test whose `on` selects the entity, and answers ' +
        '{"value": {"passing": [{"test", "type": "SUCCESS"}], "failing": [{"test", "type": "FAILURE"}]}}. A named ' +
        'test that does not select the entity is in neither list. `push` (also `shouldPush`) stores the outcome as ' +
        "the entity's testResults, versioned and audited, with the caller as actor. Needs MANAGE_TESTS. An entity " +
        'nothing is stored for, or an unknown test, is a 404 naming it.',
      body: evaluateBody,
      example: {
        body: { urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)', push: true },
      },
      handle: async ({ body, context }) => {
        const answer = await evaluate(options, [body.urn], body, context);
        return { body: { value: answer.results[body.urn] } };
      },
    }),
    defineRoute({
      method: 'POST',
      resource,
      action: 'batchEvaluate',
      family: 'restli',
      access: MANAGE_TESTS_ACCESS,
      summary: 'Evaluate metadata tests on several entities; with `push`, store each outcome.',
      description:
        'As evaluate, for each of `urns` (at most 100): {"value": {"results": {"<urn>": {"passing", "failing"}}}}.',
      body: batchEvaluateBody,
      example: {
        body: { urns: ['urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)'], testUrns: [] },
      },
      handle: async ({ body, context }) => {
        const answer = await evaluate(options, body.urns, body, context);
        return { body: { value: { results: answer.results } } };
      },
    }),
  ]);
}

async function evaluate(
  options: TestRouteOptions,
  urns: readonly string[],
  body: { testUrns?: string[]; tests?: string[]; push?: boolean; shouldPush?: boolean },
  context: RequestContext,
): Promise<EvaluationAnswer> {
  const everyTest = body.testUrns === undefined && body.tests === undefined;
  const tests = everyTest ? undefined : [...new Set([...(body.testUrns ?? []), ...(body.tests ?? [])])];
  const push = body.push === true || body.shouldPush === true;
  const answer = (await options.call(
    { method: 'POST', resource: '/internal/tests/evaluate', body: { urns: [...new Set(urns)], tests, push } },
    context,
  )) as EvaluationAnswer;
  if (answer.pushes.length > 0) {
    const proposals = answer.pushes.map((pushed) =>
      validateProposal(options.registry, {
        entityType: pushed.entityType,
        entityUrn: pushed.urn,
        changeType: 'UPSERT',
        aspectName: pushed.aspectName,
        aspect: { value: JSON.stringify(pushed.value), contentType: 'application/json' },
      }),
    );
    const waitForIndexing = context.header(SYNC_INDEX_HEADER)?.toLowerCase() === 'true';
    // MANAGE_TESTS, which the route declares, allows pushing results (as in DataHub); security inputs keep their guard.
    await options.submitter.submit(proposals, {
      ...context,
      authorization: { kind: 'guards', context },
      wait: true,
      waitForIndexing,
    });
  }
  return answer;
}
