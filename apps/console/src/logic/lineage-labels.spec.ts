import { cutWords, expandLabel, hasNone, hiddenCount, sideSummary } from './lineage-labels';

const side = (more: Partial<Parameters<typeof hiddenCount>[0]>) => ({
  expanded: false,
  loading: false,
  shown: 0,
  filtered: 0,
  ...more,
});

describe('lineage labels', () => {
  it('names the expand controls as the browser tests find them', () => {
    expect(expandLabel('UPSTREAM', 'orders', false)).toBe('Expand upstream of orders');
    expect(expandLabel('DOWNSTREAM', 'orders', true)).toBe('Collapse downstream of orders');
  });

  it('counts the neighbours not shown, when known', () => {
    expect(hiddenCount(side({ known: 5, shown: 2 }))).toBe(3);
    expect(hiddenCount(side({}))).toBe(0);
    expect(hiddenCount(side({ known: 2, shown: 3 }))).toBe(0);
  });

  it('sums up a side, and tells a side with nothing', () => {
    expect(sideSummary('UPSTREAM', side({ known: 5, shown: 2, filtered: 1 }))).toBe(
      '2 of 5 upstream shown; 1 more is not in the catalog',
    );
    expect(sideSummary('DOWNSTREAM', side({ shown: 1 }))).toBe('1 downstream shown');
    expect(hasNone(side({ known: 0 }))).toBe(true);
    expect(hasNone(side({}))).toBe(false);
    expect(hasNone(side({ known: 0, expanded: true }))).toBe(true);
    expect(hasNone(side({ known: 0, expanded: true, loading: true }))).toBe(false);
  });

  it('says where a traversal was cut, and offers what lifts the cut', () => {
    expect(cutWords({ direction: 'UPSTREAM', kind: 'page', hidden: 1234 }, 'orders', { expanded: true })).toMatchObject(
      {
        text: '+1,234 more upstream',
        action: { kind: 'more', text: 'show more', label: 'Show more upstream of orders' },
      },
    );
    expect(
      cutWords({ direction: 'DOWNSTREAM', kind: 'reach', hidden: 3 }, 'orders', { hops: 2, expanded: true }),
    ).toMatchObject({ text: '+3 more downstream within 2 hops', action: { kind: 'more-reach' } });
    expect(
      cutWords({ direction: 'UPSTREAM', kind: 'hops', hidden: 2 }, 'raw', { hops: 2, expanded: false }),
    ).toMatchObject({
      text: '+2 more upstream beyond 2 hops',
      action: { kind: 'expand', label: 'Continue upstream of raw' },
    });
    expect(cutWords({ direction: 'UPSTREAM', kind: 'limits' }, 'raw', { hops: 'all', expanded: true })).toEqual({
      text: 'upstream walk cut by a server limit',
      detail: expect.stringContaining('limits'),
    });
  });
});
