import {
  countOf,
  offsetParam,
  pageOf,
  rollbackBody,
  runPageParams,
  runPageStateOf,
  runPath,
  runsListParams,
  runsListStateOf,
  shapeRollback,
  slicePage,
  summarizeRun,
  versionsOf,
  type RollbackResponse,
  type RunRow,
} from './admin-runs';

const orders = 'urn:li:dataset:(urn:li:dataPlatform:hive,shop.orders,PROD)';
const clicks = 'urn:li:dataset:(urn:li:dataPlatform:kafka,clicks,PROD)';
const chart = 'urn:li:chart:(looker,sales)';

function row(urn: string, aspectName: string, timestamp: number, keyAspect = false): RunRow {
  return { runId: 'r1', urn, aspectName, version: 1, timestamp, keyAspect };
}

describe('paging without a total', () => {
  it('shows the page and knows a next one from the extra row', () => {
    expect(pageOf([1, 2, 3], 2)).toEqual({ rows: [1, 2], hasMore: true });
    expect(pageOf([1, 2], 2)).toEqual({ rows: [1, 2], hasMore: false });
    expect(pageOf([], 2)).toEqual({ rows: [], hasMore: false });
    expect(slicePage([1, 2, 3, 4, 5], 2, 2)).toEqual([3, 4]);
  });

  it('reads offsets from the URL, refusing what is not a whole number', () => {
    expect(offsetParam('40')).toBe(40);
    expect(offsetParam(null)).toBe(0);
    expect(offsetParam('-3')).toBe(0);
    expect(offsetParam('2.5')).toBe(0);
    expect(offsetParam('abc', 7)).toBe(7);
  });
});

describe('runs pages in the URL', () => {
  it('round-trips the list state, leaving defaults out', () => {
    const state = runsListStateOf(new URLSearchParams('start=20&soft=1'));
    expect(state).toEqual({ start: 20, includeSoft: true });
    expect(runsListParams(state).toString()).toBe('start=20&soft=1');
    expect(runsListParams({ start: 0, includeSoft: false }).toString()).toBe('');
  });

  it('round-trips a run page state: rows offset and rollback mode', () => {
    expect(runPageStateOf(new URLSearchParams(''))).toEqual({ start: 0, mode: 'soft' });
    const state = runPageStateOf(new URLSearchParams('start=40&mode=hard'));
    expect(state).toEqual({ start: 40, mode: 'hard' });
    expect(runPageParams(state).toString()).toBe('start=40&mode=hard');
    expect(runPageStateOf(new URLSearchParams('mode=other')).mode).toBe('soft');
  });

  it('makes a run path with its id encoded', () => {
    expect(runPath('postgres-2026_11_23 10:00/x')).toBe('/admin/runs/postgres-2026_11_23%2010%3A00%2Fx');
  });

  it('asks for a rollback with DataHub safe flag', () => {
    expect(rollbackBody('r1', 'soft', true)).toEqual({ runId: 'r1', dryRun: true, safe: true });
    expect(rollbackBody('r1', 'hard', false)).toEqual({ runId: 'r1', dryRun: false, safe: false });
  });
});

describe('summarizeRun', () => {
  it('counts entities, created entities, types and aspects, most first', () => {
    const summary = summarizeRun(
      [
        row(orders, 'datasetKey', 10, true),
        row(orders, 'datasetProperties', 30),
        row(orders, 'status', 20),
        row(clicks, 'datasetProperties', 15),
        row(chart, 'chartInfo', 5),
      ],
      100,
    );
    expect(summary).toEqual({
      rows: 5,
      complete: true,
      entities: 3,
      createdEntities: 1,
      entityTypes: [
        { type: 'dataset', entities: 2 },
        { type: 'chart', entities: 1 },
      ],
      aspects: [
        { aspect: 'datasetProperties', rows: 2 },
        { aspect: 'chartInfo', rows: 1 },
        { aspect: 'datasetKey', rows: 1 },
        { aspect: 'status', rows: 1 },
      ],
      newest: 30,
      oldest: 5,
    });
  });

  it('says when the rows read are not all of the run', () => {
    const rows = [row(orders, 'a', 1), row(orders, 'b', 2), row(orders, 'c', 3)];
    const summary = summarizeRun(rows, 3);
    expect(summary.complete).toBe(false);
    expect(summary.rows).toBe(3);
    expect(summarizeRun([], 3)).toMatchObject({ rows: 0, complete: true, entities: 0, newest: undefined });
  });
});

describe('shapeRollback', () => {
  const response: RollbackResponse = {
    entitiesAffected: 2,
    aspectsReverted: 3,
    entitiesDeleted: 1,
    unsafeEntitiesCount: 1,
    unsafeEntities: [{ urn: clicks }],
    aspectRowSummaries: [
      { runId: 'r1', urn: clicks, aspectName: 'datasetKey', timestamp: 5, keyAspect: true },
      { runId: 'r1', urn: clicks, aspectName: 'globalTags', timestamp: 6, keyAspect: false },
      { runId: 'r1', urn: orders, aspectName: 'datasetProperties', timestamp: 7, keyAspect: false },
    ],
  };

  it('labels each row with its effect and states the counts of a soft dry run', () => {
    const preview = shapeRollback(response, 'soft', true);
    expect(preview.rows.map((entry) => [entry.aspectName, entry.effect, entry.entityType])).toEqual([
      ['datasetKey', 'entity-hidden', 'dataset'],
      ['globalTags', 'reverted', 'dataset'],
      ['datasetProperties', 'reverted', 'dataset'],
    ]);
    expect(preview).toMatchObject({
      dryRun: true,
      entitiesAffected: 2,
      aspectsReverted: 3,
      entitiesRemoved: 1,
      unsafeEntities: [clicks],
      truncated: false,
      empty: false,
    });
    expect(preview.statements).toEqual([
      '3 aspect values of 2 entities would be reverted: each goes back to the value another run wrote before it, or is removed when there is none.',
      '1 entity the run created would be hidden (soft-deleted); what other runs wrote on them stays, and they can be restored.',
      '1 entity created by this run also holds values other runs wrote: those values are hidden with the entity.',
      'Timeseries values the run wrote (profiles, usage, operations) are removed too; a dry run does not count them.',
    ]);
  });

  it('tells a value removed (first version) from one restored (earlier versions), from the run rows', () => {
    const versions = versionsOf([
      { ...row(clicks, 'globalTags', 6), version: 1 },
      { ...row(orders, 'datasetProperties', 7), version: 3 },
    ]);
    const preview = shapeRollback(response, 'soft', true, versions);
    expect(preview.rows.map((entry) => entry.effect)).toEqual(['entity-hidden', 'removed', 'restored']);
    expect(preview.rows[1]?.effectLabel).toBe('the run wrote its first version: the aspect is removed');
  });

  it('says a hard rollback deletes for good, and reports what a real one affected', () => {
    const outcome = shapeRollback({ ...response, aspectsAffected: 4 }, 'hard', false);
    expect(outcome.rows[0]?.effect).toBe('entity-deleted');
    expect(outcome.statements[0]).toMatch(/^3 aspect values of 2 entities were reverted/);
    expect(outcome.statements[1]).toBe(
      '1 entity the run created was deleted for good, with whatever other runs wrote on them.',
    );
    expect(outcome.statements).toContain('4 values other runs wrote on the removed entities were affected.');
    expect(outcome.aspectsAffected).toBe(4);
  });

  it('knows an empty run and a listing cut at 100 rows', () => {
    const empty = shapeRollback({ entitiesAffected: 0, entitiesDeleted: 0, aspectRowSummaries: [] }, 'soft', true);
    expect(empty.empty).toBe(true);
    expect(empty.aspectsReverted).toBe(0);
    const many = Array.from({ length: 100 }, (_, index) => ({
      runId: 'r1',
      urn: `urn:li:tag:t${index}`,
      aspectName: 'tagProperties',
      timestamp: index,
      keyAspect: false,
    }));
    const cut = shapeRollback(
      { entitiesAffected: 150, aspectsReverted: 150, entitiesDeleted: 0, aspectRowSummaries: many },
      'soft',
      true,
    );
    expect(cut.truncated).toBe(true);
    expect(cut.rows).toHaveLength(100);
  });

  it('counts in words', () => {
    expect(countOf(1, 'entity', 'entities')).toBe('1 entity');
    expect(countOf(1200, 'row')).toBe('1,200 rows');
  });
});
