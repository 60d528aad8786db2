import {
  MAX_PAGES,
  pagesOf,
  readLineageState,
  resetLineageState,
  showMore,
  showMoreReach,
  toggleExpansion,
  withReach,
  writeLineageState,
} from './lineage-state';

const CENTER = 'urn:li:dataset:(urn:li:dataPlatform:hive,center,PROD)';
const A = 'urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)';
const B = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,etl,prod),load)';

describe('readLineageState', () => {
  it('opens one hop each way around the centre, as a graph', () => {
    expect(readLineageState(new URLSearchParams(), CENTER)).toEqual({
      center: CENTER,
      expansions: [
        { urn: CENTER, direction: 'UPSTREAM', pages: 1 },
        { urn: CENTER, direction: 'DOWNSTREAM', pages: 1 },
      ],
      reach: undefined,
      columns: false,
      selected: undefined,
      view: 'graph',
    });
  });

  it('reads expansions, pages, "expand all", columns, the selected entity and the list view', () => {
    const params = new URLSearchParams();
    params.append('up', A);
    params.append('up', `3~${B}`);
    params.append('down', `0~${CENTER}`);
    params.append('down', 'not-a-urn');
    params.set('hops', 'all~2');
    params.set('columns', '1');
    params.set('node', A);
    params.set('view', 'list');
    expect(readLineageState(params, CENTER)).toEqual({
      center: CENTER,
      expansions: [
        { urn: CENTER, direction: 'UPSTREAM', pages: 1 },
        { urn: A, direction: 'UPSTREAM', pages: 1 },
        { urn: B, direction: 'UPSTREAM', pages: 3 },
        { urn: CENTER, direction: 'DOWNSTREAM', pages: 0 },
      ],
      reach: { hops: 'all', pages: 2 },
      columns: true,
      selected: A,
      view: 'list',
    });
  });

  it('ignores what it cannot read, and bounds pages', () => {
    const params = new URLSearchParams({ hops: '7', node: 'x', view: 'grid', columns: 'yes', up: `999~${A}` });
    const state = readLineageState(params, CENTER);
    expect(state.reach).toBeUndefined();
    expect(state.selected).toBeUndefined();
    expect(state.view).toBe('graph');
    expect(state.columns).toBe(false);
    expect(pagesOf(state, A, 'UPSTREAM')).toBe(MAX_PAGES);
    expect(readLineageState(new URLSearchParams({ hops: '2~x' }), CENTER).reach).toEqual({ hops: 2, pages: 1 });
  });
});

describe('writeLineageState', () => {
  it("writes back what it reads, keeping the page's other parameters", () => {
    const text = `other=1&up=${encodeURIComponent(A)}&up=${encodeURIComponent(`3~${B}`)}&down=${encodeURIComponent(
      `0~${CENTER}`,
    )}&hops=2&columns=1&node=${encodeURIComponent(A)}&view=list`;
    const params = new URLSearchParams(text);
    const written = writeLineageState(readLineageState(params, CENTER), params);
    expect(written.toString()).toBe(new URLSearchParams(text).toString());
  });

  it('leaves defaults out', () => {
    expect(writeLineageState(readLineageState(new URLSearchParams(), CENTER)).toString()).toBe('');
  });
});

describe('changes', () => {
  const start = readLineageState(new URLSearchParams(), CENTER);

  it('expands an entity and collapses it again', () => {
    const expanded = toggleExpansion(start, A, 'UPSTREAM');
    expect(pagesOf(expanded, A, 'UPSTREAM')).toBe(1);
    expect(writeLineageState(expanded).getAll('up')).toEqual([A]);
    const collapsed = toggleExpansion(expanded, A, 'UPSTREAM');
    expect(pagesOf(collapsed, A, 'UPSTREAM')).toBe(0);
    expect(writeLineageState(collapsed).toString()).toBe('');
  });

  it('collapses the centre explicitly, and expands it back to the default', () => {
    const collapsed = toggleExpansion(start, CENTER, 'DOWNSTREAM');
    expect(writeLineageState(collapsed).getAll('down')).toEqual([`0~${CENTER}`]);
    expect(writeLineageState(toggleExpansion(collapsed, CENTER, 'DOWNSTREAM')).toString()).toBe('');
  });

  it('shows more pages', () => {
    const more = showMore(showMore(start, CENTER, 'UPSTREAM'), CENTER, 'UPSTREAM');
    expect(pagesOf(more, CENTER, 'UPSTREAM')).toBe(3);
    expect(writeLineageState(more).getAll('up')).toEqual([`3~${CENTER}`]);
  });

  it('expands all to some hops, shows more of it, and resets', () => {
    const all = showMoreReach(withReach(toggleExpansion(start, A, 'UPSTREAM'), 2));
    expect(all.reach).toEqual({ hops: 2, pages: 2 });
    expect(writeLineageState(all).get('hops')).toBe('2~2');
    expect(withReach(all, undefined).reach).toBeUndefined();
    expect(showMoreReach(start)).toBe(start);
    const reset = resetLineageState({ ...all, columns: true, selected: A });
    expect(writeLineageState(reset).toString()).toBe('columns=1');
  });
});
