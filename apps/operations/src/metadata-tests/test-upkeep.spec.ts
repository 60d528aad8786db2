import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChangeLogEvent } from '@strata/change-log';
import type { RequestContext } from '@strata/http';
import { testEntityRegistry } from '@strata/model/testing';
import { eventually } from '@strata/testing';
import { systemScheduler } from '@strata/timing';
import { testsInForce, type EntityState, type StoredTest } from '../domain/test-results';
import { TaskLedger } from '../tasks/task-ledger';
import type { TestReads } from './test-reads';
import { TEST_TASK_KIND, TestUpkeep, type IdentifiedPush, type TestTaskCounters } from './test-upkeep';

const registry = testEntityRegistry();
const context = { requestId: 'r', traceId: 't', actor: 'urn:li:corpuser:__datahub_system' } as RequestContext;
const quiet = { info: () => undefined, warn: () => undefined };
const urnOf = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const ownedTest = (urn: string): StoredTest => ({
  urn,
  info: {
    name: urn,
    category: 'c',
    definition: {
      type: 'JSON',
      json: JSON.stringify({
        on: { types: ['dataset'] },
        rules: { property: 'ownership.owners.owner', operator: 'exists' },
      }),
    },
  },
});

/** A writer in memory: entities whole, tests, and pushes applied as the writer would apply their proposals. */
class FakeOwners implements TestReads {
  readonly entitiesByUrn = new Map<string, EntityState>();
  stored: StoredTest[] = [];
  readonly pushes: IdentifiedPush[] = [];
  readonly scans: (string | undefined)[] = [];
  /** When set, a scan waits for it, from the `gateFrom`th scan on: the test holds a task between pages. */
  gate: Promise<void> | undefined;
  gateFrom = 1;

  tests() {
    return Promise.resolve(testsInForce(registry, this.stored, () => undefined));
  }
  entities(urns: readonly string[]) {
    return Promise.resolve(urns.flatMap((urn) => this.entitiesByUrn.get(urn) ?? []));
  }
  async scan(_type: string, after: string | undefined, limit: number) {
    this.scans.push(after);
    if (this.scans.length >= this.gateFrom) await this.gate;
    const all = [...this.entitiesByUrn.keys()].sort().filter((urn) => after === undefined || urn > after);
    const page = all.slice(0, limit).map((urn) => this.entitiesByUrn.get(urn) as EntityState);
    return { entities: page, last: page[page.length - 1]?.urn ?? null, exhausted: page.length < limit };
  }
  count() {
    return Promise.resolve(this.entitiesByUrn.size);
  }
  publish = (pushes: readonly IdentifiedPush[]) => {
    for (const push of pushes) {
      this.pushes.push(push);
      const entity = this.entitiesByUrn.get(push.urn);
      if (entity)
        this.entitiesByUrn.set(push.urn, { ...entity, aspects: { ...entity.aspects, testResults: push.value } });
    }
    return Promise.resolve();
  };
}

function event(urn: string, aspect: string, value: unknown, offset: number, previousValue?: unknown): ChangeLogEvent {
  const entity = registry.entity(urn.startsWith('urn:li:test:') ? 'test' : 'dataset');
  if (entity === undefined) throw new Error('no entity');
  const spec = entity.aspect(aspect);
  if (spec === undefined) throw new Error(`no aspect ${aspect}`);
  return {
    kind: 'versioned',
    record: { topic: 'MetadataChangeLog_Versioned_v1', partition: 0, offset: String(offset) },
    entity,
    aspect: spec,
    urn,
    changeType: 'UPSERT',
    value,
    previousValue,
    created: { time: 1, actor: 'urn:li:corpuser:datahub' },
    systemMetadata: {},
    headers: {},
  } as unknown as ChangeLogEvent;
}

describe('TestUpkeep', () => {
  let directory: string;
  let ledger: TaskLedger;
  let owners: FakeOwners;
  const upkeeps: TestUpkeep[] = [];
  const open = () =>
    new TaskLedger({ path: join(directory, 'operations.sqlite'), now: Date.now, resumable: [TEST_TASK_KIND] });
  const upkeepOf = (taskLedger: TaskLedger, pageSize = 10) => {
    const upkeep = new TestUpkeep({
      registry,
      reads: owners,
      ledger: taskLedger,
      publish: owners.publish,
      context,
      scheduler: systemScheduler,
      logger: quiet,
      pageSize,
    });
    upkeeps.push(upkeep);
    return upkeep;
  };

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'strata-upkeep-'));
    ledger = open();
    owners = new FakeOwners();
  });

  afterEach(async () => {
    for (const upkeep of upkeeps.splice(0)) await upkeep.stop();
    await ledger.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('given an entity that changes, then its results are pushed when the outcome changes, and its own push settles', async () => {
    owners.stored = [ownedTest('urn:li:test:owned')];
    const urn = urnOf('a');
    owners.entitiesByUrn.set(urn, { urn, aspects: { status: { removed: false } } });
    const hook = upkeepOf(ledger).hook();
    expect(hook).toMatchObject({ servesReads: false, appliesRestatements: false, consumes: ['versioned'] });

    await hook.apply([event(urn, 'status', { removed: false }, 7)]);
    expect(owners.pushes).toHaveLength(1);
    expect(owners.pushes[0]).toMatchObject({
      urn,
      aspectName: 'testResults',
      requestId: 'metadata-tests/MetadataChangeLog_Versioned_v1/0/7',
      value: { failing: [{ test: 'urn:li:test:owned', type: 'FAILURE' }], passing: [] },
    });
    // The push comes back as a change: evaluated again, it agrees with what is stored.
    await hook.apply([event(urn, 'testResults', owners.pushes[0]?.value, 8)]);
    // A change that does not move the outcome pushes nothing either.
    await hook.apply([event(urn, 'status', { removed: true }, 9)]);
    expect(owners.pushes).toHaveLength(1);

    owners.entitiesByUrn.set(urn, {
      urn,
      aspects: { ...owners.entitiesByUrn.get(urn)?.aspects, ownership: { owners: [{ owner: 'urn:li:corpuser:x' }] } },
    });
    await hook.apply([event(urn, 'ownership', {}, 10)]);
    expect(owners.pushes).toHaveLength(2);
    expect(owners.pushes[1]?.value.passing.map((result) => result.test)).toEqual(['urn:li:test:owned']);
  });

  it('given a test defined, then a task evaluates every entity it selects, page by page, with visible progress', async () => {
    for (let index = 0; index < 25; index += 1) {
      const urn = urnOf(`e${String(index).padStart(2, '0')}`);
      owners.entitiesByUrn.set(urn, {
        urn,
        aspects: index % 5 === 0 ? { ownership: { owners: [{ owner: 'x' }] } } : {},
      });
    }
    owners.stored = [ownedTest('urn:li:test:owned')];
    let open_: () => void = () => undefined;
    owners.gate = new Promise<void>((resolve) => {
      open_ = resolve;
    });
    const upkeep = upkeepOf(ledger);
    await upkeep.hook().apply([event('urn:li:test:owned', 'testInfo', owners.stored[0]?.info, 1)]);

    const [task] = ledger.newest(TEST_TASK_KIND, 10);
    expect(task?.request).toEqual({ test: 'urn:li:test:owned', changeType: 'UPSERT', entityTypes: ['dataset'] });
    await eventually(() => {
      expect(owners.scans).toHaveLength(1);
    });
    expect(ledger.get(task?.number ?? 0)).toMatchObject({
      completed: false,
      counters: { phase: 'evaluating', total: 25 },
    });
    open_();
    owners.gate = undefined;
    await upkeep.idle();
    const done = ledger.get(task?.number ?? 0);
    expect(done).toMatchObject({ completed: true, error: undefined });
    expect(done?.counters as unknown as TestTaskCounters).toMatchObject({
      phase: 'done',
      total: 25,
      evaluated: 25,
      pushed: 25,
      passing: 5,
      failing: 20,
      eta_millis: 0,
    });
    expect(owners.scans).toEqual([undefined, urnOf('e09'), urnOf('e19')]);
    expect(new Set(owners.pushes.map((push) => push.requestId)).size).toBe(25);
    expect(ledger.report({ nodeId: ledger.nodeId, number: task?.number ?? 0 }, Date.now())?.completed).toBe(true);
  });

  it('given a task cut short by a stop, then the next start takes it up from its cursor', async () => {
    for (let index = 0; index < 25; index += 1) {
      const urn = urnOf(`e${String(index).padStart(2, '0')}`);
      owners.entitiesByUrn.set(urn, { urn, aspects: {} });
    }
    owners.stored = [ownedTest('urn:li:test:owned')];
    let release: () => void = () => undefined;
    // Hold the second page, then stop: the page in progress is finished and recorded, and no other begins.
    owners.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    owners.gateFrom = 2;
    const first = upkeepOf(ledger);
    await first.hook().apply([event('urn:li:test:owned', 'testInfo', owners.stored[0]?.info, 1)]);
    await eventually(() => {
      expect(owners.scans).toHaveLength(2);
    });
    const stopping = first.stop();
    release();
    await stopping;
    await ledger.close();

    ledger = open();
    const [task] = ledger.unfinished(TEST_TASK_KIND);
    expect(task?.counters).toMatchObject({ evaluated: 20, cursor: { type: 0, after: urnOf('e19') } });
    owners.gate = undefined;
    owners.scans.length = 0;
    const second = upkeepOf(ledger);
    await second.start();
    await second.idle();
    expect(owners.scans).toEqual([urnOf('e19')]);
    expect(ledger.get(task?.number ?? 0)?.counters).toMatchObject({ phase: 'done', evaluated: 25, pushed: 25 });
  });
});
