import { Counter, Gauge, Registry } from 'prom-client';
import type { ChangeLogEvent, ChangeLogHook } from '@strata/change-log';
import type { RequestContext } from '@strata/http';
import { SYSTEM_ACTOR_URN, TEST_RESULTS_ASPECT, type EntityRegistry } from '@strata/model';
import type { Scheduler } from '@strata/timing';
import {
  entityTypeOf,
  outcomesOf,
  reconcile,
  typesSelected,
  type EntityState,
  type MetadataTest,
} from '../domain/test-results';
import type { TaskLedger } from '../tasks/task-ledger';
import type { ResultsPush } from './evaluation';
import type { TestReads } from './test-reads';

/** The hook's name: its consumer's progress and metrics are reported under it. */
export const METADATA_TESTS_HOOK = 'metadata-tests';
/** The ledger's kind for a re-evaluation after a test changed. */
export const TEST_TASK_KIND = 'metadata-tests';
/** Entities one page of a re-evaluation reads. */
export const TEST_TASK_PAGE = 500;
/** Attempts at one page of a re-evaluation before the task fails (an owner down for longer). */
const PAGE_ATTEMPTS = 6;
const FIRST_BACKOFF_MS = 500;

/** A push of `testResults`, with the request id that makes it apply once however often it is published. */
export interface IdentifiedPush extends ResultsPush {
  readonly requestId: string;
}

export interface TestUpkeepOptions {
  readonly registry: EntityRegistry;
  readonly reads: TestReads;
  readonly ledger: TaskLedger;
  /** Publishes pushes as proposals of the system actor; resolves once the log holds them. */
  readonly publish: (pushes: readonly IdentifiedPush[]) => Promise<void>;
  /** The context of the service's own calls to the owners (the system client's). */
  readonly context: RequestContext;
  readonly scheduler: Scheduler;
  readonly logger: { info(details: object, message: string): void; warn(details: object, message: string): void };
  readonly pageSize?: number;
}

/** What a re-evaluation task was asked: the test that changed, and the entity types to go over. */
export interface TestTaskRequest {
  readonly test: string;
  readonly changeType: string;
  readonly entityTypes: readonly string[];
}

/** A re-evaluation's counters, as getEsTaskStatus and the task list show them. */
export interface TestTaskCounters {
  readonly test: string;
  readonly entity_types: readonly string[];
  readonly phase: 'queued' | 'evaluating' | 'done';
  /** The entities of those types search counted when the task began (an estimate: soft-deleted ones aside). */
  readonly total: number;
  /** Entities evaluated so far. */
  readonly evaluated: number;
  /** Entities whose results changed, and were pushed. */
  readonly pushed: number;
  /** Of those evaluated, how many the changed test selects and passes, and fails. */
  readonly passing: number;
  readonly failing: number;
  readonly entities_per_second: number;
  /** Time left at that rate, in milliseconds; null before any entity is evaluated. */
  readonly eta_millis: number | null;
  /** Where a resumed task goes on: the index of the entity type, and the last URN done in it. */
  readonly cursor: { readonly type: number; readonly after: string | null };
}

/**
 * Keeps every entity's `testResults` current, as the system actor, when automatic evaluation is on.
 *
 * - Its hook reads the versioned change logs. A change of an entity of a type some test selects re-evaluates that
 *   entity, whole, against every test in force, and pushes `testResults` only when the outcome differs from the one
 *   stored. Its own pushes come back as changes too: evaluated once more, they agree with what is stored and push
 *   nothing — which is also what corrects a push computed from a state that changed meanwhile. Restatements are not
 *   given to it.
 * - A test defined, changed, removed or deleted becomes a task (in the ledger, before the change log is
 *   acknowledged): every entity of the types the test selects, before and after, is re-evaluated page by page.
 *   Tasks run one at a time, in order; a task the process left unfinished resumes from its cursor at start.
 *
 * Every push carries a request id derived from what caused it, so a change log delivered again, or a page done again
 * after a crash, is applied once by the writer.
 */
export class TestUpkeep {
  readonly metrics = new Registry();
  private readonly queue: number[] = [];
  private running: Promise<void> | undefined;
  private stopping = false;
  private readonly counters;

  constructor(private readonly options: TestUpkeepOptions) {
    const registers = [this.metrics];
    this.counters = {
      evaluated: new Counter({
        name: 'strata_metadata_tests_entities_evaluated_total',
        help: 'Entities the automatic evaluation of metadata tests evaluated.',
        registers,
      }),
      pushed: new Counter({
        name: 'strata_metadata_tests_results_pushed_total',
        help: 'testResults the automatic evaluation pushed (the outcome had changed).',
        registers,
      }),
      queued: new Gauge({
        name: 'strata_metadata_tests_tasks_queued',
        help: 'Re-evaluations after a test changed, waiting or running.',
        registers,
      }),
      taskTotal: new Gauge({
        name: 'strata_metadata_tests_task_entities_estimated',
        help: 'Entities the running re-evaluation goes over (an estimate).',
        registers,
      }),
      taskDone: new Gauge({
        name: 'strata_metadata_tests_task_entities_done',
        help: 'Entities the running re-evaluation has evaluated.',
        registers,
      }),
    };
  }

  /** The change-log hook of automatic evaluation. */
  hook(): ChangeLogHook {
    return {
      name: METADATA_TESTS_HOOK,
      consumes: ['versioned'],
      servesReads: false,
      appliesRestatements: false,
      apply: (events) => this.apply(events),
    };
  }

  /** Takes up the tasks a previous process left unfinished. */
  start(): Promise<void> {
    for (const task of this.options.ledger.unfinished(TEST_TASK_KIND)) this.enqueue(task.number);
    return Promise.resolve();
  }

  /** Stops after the page in progress; unfinished tasks stay in the ledger for the next start. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  /** Waits until no task is queued or running (tests, and a caller who wants the indices settled). */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  private async apply(events: readonly ChangeLogEvent[]): Promise<void> {
    const { registry, reads, context } = this.options;
    for (const event of events) {
      if (event.entity.name === 'test' && (event.aspect.name === 'testInfo' || event.aspect.name === 'status')) {
        await this.testChanged(event);
      }
    }
    const changed = events.filter((event) => event.entity.name !== 'test');
    if (changed.length === 0) return;
    const tests = await reads.tests(context);
    const selected = new Set(tests.flatMap((test) => test.definition.types));
    // The last event of each entity names the push: delivered again, the same push applies once.
    const causes = new Map<string, ChangeLogEvent>();
    for (const event of changed) if (selected.has(event.entity.name)) causes.set(event.urn, event);
    if (causes.size === 0) return;
    const entities = await reads.entities([...causes.keys()], context);
    const pushes: IdentifiedPush[] = [];
    const stamp = { time: this.options.scheduler.now(), actor: SYSTEM_ACTOR_URN };
    for (const entity of entities) {
      const entityType = entityTypeOf(registry, entity.urn);
      const cause = causes.get(entity.urn);
      if (entityType === undefined || cause === undefined) continue;
      const value = reconcile(entityType, entity, tests, stamp);
      if (value === undefined) continue;
      const { topic, partition, offset } = cause.record;
      pushes.push({
        urn: entity.urn,
        entityType,
        aspectName: TEST_RESULTS_ASPECT,
        value,
        requestId: `metadata-tests/${topic}/${partition}/${offset}`,
      });
    }
    this.counters.evaluated.inc(entities.length);
    if (pushes.length === 0) return;
    await this.options.publish(pushes);
    this.counters.pushed.inc(pushes.length);
  }

  /** Records the re-evaluation a test's change calls for, then queues it. */
  private async testChanged(event: ChangeLogEvent): Promise<void> {
    const { registry, reads, context, ledger, scheduler } = this.options;
    let types = [
      ...new Set([
        ...(typesSelected(registry, event.value) ?? []),
        ...(typesSelected(registry, event.previousValue) ?? []),
      ]),
    ];
    if (event.aspect.name === 'status') {
      const [test] = await reads.entities([event.urn], context);
      types = [...(typesSelected(registry, test?.aspects['testInfo']) ?? [])];
    }
    // A definition that never parsed selects nothing it could have pushed for.
    if (types.length === 0) return;
    const request: TestTaskRequest = { test: event.urn, changeType: event.changeType, entityTypes: types.sort() };
    const number = ledger.create(TEST_TASK_KIND, request, scheduler.now(), {
      ...initialCounters(request),
      phase: 'queued',
    });
    this.options.logger.info(
      { task: `${ledger.nodeId}:${number}`, test: event.urn, entityTypes: types },
      'a metadata test changed: its entities will be evaluated again',
    );
    this.enqueue(number);
  }

  private enqueue(number: number): void {
    this.queue.push(number);
    this.counters.queued.set(this.queue.length + (this.running === undefined ? 0 : 1));
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
      this.counters.queued.set(this.queue.length);
    });
  }

  private async drain(): Promise<void> {
    for (let number = this.queue.shift(); number !== undefined && !this.stopping; number = this.queue.shift()) {
      this.counters.queued.set(this.queue.length + 1);
      await this.runTask(number);
    }
  }

  private async runTask(number: number): Promise<void> {
    const { ledger, reads, context, scheduler, logger } = this.options;
    const task = ledger.get(number);
    if (task === undefined || task.completed) return;
    const request = task.request as TestTaskRequest;
    const saved = task.counters as Partial<TestTaskCounters>;
    const name = `${ledger.nodeId}:${number}`;
    const pageSize = this.options.pageSize ?? TEST_TASK_PAGE;
    let counters: TestTaskCounters = { ...initialCounters(request), ...saved, phase: 'evaluating' };
    const began = scheduler.now();
    const doneBefore = counters.evaluated;
    const record = () => {
      const elapsed = scheduler.now() - began;
      const rate = elapsed > 0 ? ((counters.evaluated - doneBefore) * 1_000) / elapsed : 0;
      counters = {
        ...counters,
        entities_per_second: Math.round(rate),
        eta_millis:
          counters.phase === 'done'
            ? 0
            : rate > 0
              ? Math.round((Math.max(0, counters.total - counters.evaluated) * 1_000) / rate)
              : null,
      };
      this.counters.taskTotal.set(counters.total);
      this.counters.taskDone.set(counters.evaluated);
      return counters;
    };
    try {
      if (saved.phase === 'queued' || saved.phase === undefined) {
        let total = 0;
        for (const type of request.entityTypes) total += await this.retrying(() => reads.count(type, context));
        counters = { ...counters, total };
      }
      ledger.update(number, record());
      for (let index = counters.cursor.type; index < request.entityTypes.length; index += 1) {
        const entityType = request.entityTypes[index] ?? '';
        let after = index === counters.cursor.type ? (counters.cursor.after ?? undefined) : undefined;
        for (;;) {
          if (this.stopping) return; // unfinished: the next start takes it up from the cursor
          const page = await this.retrying(async () => {
            const tests = await reads.tests(context);
            const scanned = await reads.scan(entityType, after, pageSize, context);
            return { tests, scanned, outcome: await this.evaluatePage(name, request, tests, scanned.entities) };
          });
          counters = {
            ...counters,
            evaluated: counters.evaluated + page.scanned.entities.length,
            pushed: counters.pushed + page.outcome.pushed,
            passing: counters.passing + page.outcome.passing,
            failing: counters.failing + page.outcome.failing,
            cursor: { type: index, after: page.scanned.last ?? after ?? null },
          };
          ledger.update(number, record());
          if (page.scanned.exhausted || page.scanned.last === null) break;
          after = page.scanned.last;
        }
        counters = { ...counters, cursor: { type: index + 1, after: null } };
      }
      counters = { ...counters, phase: 'done', total: Math.max(counters.total, counters.evaluated) };
      ledger.finish(number, record(), scheduler.now());
      logger.info(
        { task: name, test: request.test, evaluated: counters.evaluated, pushed: counters.pushed },
        'evaluated the entities of a changed metadata test',
      );
    } catch (error) {
      ledger.finish(number, record(), scheduler.now(), {
        type: 'evaluation_failed',
        reason: error instanceof Error ? error.message : String(error),
      });
      logger.warn({ task: name, err: error }, 'a re-evaluation of metadata tests failed');
    }
  }

  /** Evaluates a page of entities, pushes the results that changed, and counts the changed test's outcomes. */
  private async evaluatePage(
    task: string,
    request: TestTaskRequest,
    tests: readonly MetadataTest[],
    entities: readonly EntityState[],
  ): Promise<{ pushed: number; passing: number; failing: number }> {
    const { registry, scheduler } = this.options;
    const stamp = { time: scheduler.now(), actor: SYSTEM_ACTOR_URN };
    const changedTest = tests.filter((test) => test.urn === request.test);
    const pushes: IdentifiedPush[] = [];
    let passing = 0;
    let failing = 0;
    for (const entity of entities) {
      const entityType = entityTypeOf(registry, entity.urn);
      if (entityType === undefined) continue;
      const own = outcomesOf(entityType, entity, changedTest);
      passing += own.passing.length;
      failing += own.failing.length;
      const value = reconcile(entityType, entity, tests, stamp);
      if (value === undefined) continue;
      pushes.push({
        urn: entity.urn,
        entityType,
        aspectName: TEST_RESULTS_ASPECT,
        value,
        requestId: `metadata-tests/task/${task}/${entity.urn}`,
      });
    }
    this.counters.evaluated.inc(entities.length);
    if (pushes.length > 0) {
      await this.options.publish(pushes);
      this.counters.pushed.inc(pushes.length);
    }
    return { pushed: pushes.length, passing, failing };
  }

  /** Runs `work`, again after a growing pause when it fails, up to PAGE_ATTEMPTS times. */
  private async retrying<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await work();
      } catch (error) {
        if (attempt >= PAGE_ATTEMPTS || this.stopping) throw error;
        this.options.logger.warn({ attempt, err: error }, 'a page of a metadata-test evaluation failed; retrying');
        await this.options.scheduler.sleep(FIRST_BACKOFF_MS * 2 ** (attempt - 1));
      }
    }
  }
}

function initialCounters(request: TestTaskRequest): TestTaskCounters {
  return {
    test: request.test,
    entity_types: request.entityTypes,
    phase: 'queued',
    total: 0,
    evaluated: 0,
    pushed: 0,
    passing: 0,
    failing: 0,
    entities_per_second: 0,
    eta_millis: null,
    cursor: { type: 0, after: null },
  };
}
