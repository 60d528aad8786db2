import { z } from 'zod';
import { defineRoute, type Route } from '@strata/http';
import type { EntityRegistry } from '@strata/model';
import { answerOf } from '../domain/test-results';
import { evaluateEntities } from '../metadata-tests/evaluation';
import type { TestReads } from '../metadata-tests/test-reads';
import { TEST_TASK_KIND } from '../metadata-tests/test-upkeep';
import type { TaskLedger } from '../tasks/task-ledger';

/** The most entities one evaluation names. */
export const MAX_EVALUATED_ENTITIES = 100;
/** The most tasks the list of re-evaluations answers. */
const MAX_LISTED_TASKS = 100;

export interface TestRouteOptions {
  readonly registry: EntityRegistry;
  readonly reads: TestReads;
  readonly ledger: TaskLedger;
  readonly now: () => number;
  /** Whether automatic evaluation runs in this deployment (the list of tasks says so). */
  readonly autoEvaluation: boolean;
}

const evaluateBody = z.object({
  urns: z.array(z.string()).min(1).max(MAX_EVALUATED_ENTITIES),
  tests: z.array(z.string()).optional(),
  push: z.boolean(),
});

/**
 * Metadata tests' routes of the operations service: the evaluation itself, internal (the gateway serves evaluate and
 * batchEvaluate on it, and submits the pushes as the caller's proposals), and the list of the re-evaluations automatic
 * evaluation ran after tests changed, whose ids getEsTaskStatus takes.
 */
export function testRoutes(options: TestRouteOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      resource: '/internal/tests/evaluate',
      family: 'restli',
      access: { kind: 'internal' },
      summary: 'Evaluates tests on entities; with `push`, the testResults values to store as well.',
      body: evaluateBody,
      handle: async ({ body, context }) => {
        const stamp = { time: options.now(), actor: context.actor };
        const evaluation = await evaluateEntities(options.registry, options.reads, body, stamp, context);
        return {
          body: {
            results: Object.fromEntries([...evaluation.results].map(([urn, outcomes]) => [urn, answerOf(outcomes)])),
            pushes: evaluation.pushes,
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      resource: '/openapi/operations/tests/evaluations',
      family: 'openapi',
      access: {
        kind: 'privilege',
        anyOf: [['MANAGE_TESTS'], ['MANAGE_SYSTEM_OPERATIONS']],
        message: 'User is unauthorized to view the evaluations of tests.',
        always: true,
      },
      summary: 'The re-evaluations automatic evaluation ran after tests changed, newest first.',
      description:
        'Each task: its id (for getEsTaskStatus), the test that changed, the entity types it goes over, whether it is ' +
        'complete, and its counters (`total` estimated, `evaluated`, `pushed`, `passing` and `failing` for the test, ' +
        '`entities_per_second`, `eta_millis`, `phase`). `test` keeps the tasks of one test; `limit` (default 20, at ' +
        'most 100) how many. `autoEvaluation` says whether automatic evaluation is on.',
      query: z.object({
        test: z.string().min(1).optional(),
        limit: z.coerce.number().int().min(1).max(MAX_LISTED_TASKS).default(20),
      }),
      handle: ({ query }) => {
        const tasks = options.ledger
          .newest(TEST_TASK_KIND, query.test === undefined ? query.limit : MAX_LISTED_TASKS * 10)
          .filter((task) => query.test === undefined || (task.request as { test?: string }).test === query.test)
          .slice(0, query.limit)
          .map((task) => ({
            task: `${task.nodeId}:${task.number}`,
            ...(task.request as object),
            completed: task.completed,
            startedAt: task.startedAt,
            finishedAt: task.finishedAt ?? null,
            status: task.counters,
            ...(task.error === undefined ? {} : { error: `${task.error.type}: ${task.error.reason}` }),
          }));
        return Promise.resolve({ body: { autoEvaluation: options.autoEvaluation, tasks } });
      },
    }),
  ];
}
