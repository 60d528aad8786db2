import { ValidationError } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import type { Criterion } from '@strata/indices';
import { degreeBucket, lineageFilterOf } from './degree-filter';
import { entityTypeOf, LineageRegistry } from './lineage-registry';
import { compare } from './lineage-walk';
import { decodeScrollId, encodeScrollId } from './scroll-cursor';

const degree = (values: string[], negated = false): Criterion => ({
  field: 'degree',
  values,
  condition: 'EQUAL',
  negated,
});
const platform: Criterion = {
  field: 'platform',
  values: ['urn:li:dataPlatform:hive'],
  condition: 'EQUAL',
  negated: false,
};

describe('LineageRegistry', () => {
  const lineage = LineageRegistry.of(testEntityRegistry());

  it('given DataHub’s annotations, then a dataset’s upstream is what it is DownstreamOf, its downstream who consumes it', () => {
    expect(lineage.hops('dataset', 'UPSTREAM')).toContainEqual({
      type: 'DownstreamOf',
      direction: 'OUTGOING',
      otherType: 'dataset',
    });
    expect(lineage.hops('dataset', 'DOWNSTREAM')).toEqual(
      expect.arrayContaining([
        { type: 'DownstreamOf', direction: 'INCOMING', otherType: 'dataset' },
        { type: 'Consumes', direction: 'INCOMING', otherType: 'dataJob' },
      ]),
    );
    // The job producing a dataset is upstream of it.
    expect(lineage.hops('dataset', 'UPSTREAM')).toContainEqual({
      type: 'Produces',
      direction: 'INCOMING',
      otherType: 'dataJob',
    });
    expect(lineage.hops('dataset', 'DOWNSTREAM')).not.toContainEqual(expect.objectContaining({ type: 'Produces' }));
    // A job's outputs are downstream of it (isUpstream false); its inputs upstream.
    expect(lineage.hops('dataJob', 'DOWNSTREAM')).toContainEqual({
      type: 'Produces',
      direction: 'OUTGOING',
      otherType: 'dataset',
    });
    expect(lineage.hops('dataJob', 'UPSTREAM')).toContainEqual({
      type: 'Consumes',
      direction: 'OUTGOING',
      otherType: 'dataset',
    });
  });

  it('given the fine-grained annotation (not lineage), then a dataset’s schema-field edges are no hop', () => {
    expect(
      lineage.isHop('dataset', 'UPSTREAM', { type: 'DownstreamOf', direction: 'OUTGOING', otherType: 'schemaField' }),
    ).toBe(false);
    expect(
      lineage.isHop('schemaField', 'UPSTREAM', {
        type: 'DownstreamOf',
        direction: 'OUTGOING',
        otherType: 'schemaField',
      }),
    ).toBe(true);
    expect(lineage.hops('corpuser', 'UPSTREAM')).toEqual([]);
  });

  it('names the types one hop reads, per edge direction', () => {
    const reads = lineage.reads(['dataJob'], 'DOWNSTREAM');
    expect(reads.OUTGOING).toContain('Produces');
    expect(reads.INCOMING).toContain('DownstreamOf');
    expect(entityTypeOf('urn:li:dataJob:(a,b)')).toBe('dataJob');
    expect(entityTypeOf('nonsense')).toBeUndefined();
  });
});

describe('lineageFilterOf', () => {
  it('splits each group into its degree test and its other criteria, and bounds the hops to walk', () => {
    const filter = lineageFilterOf([[degree(['1', '2']), platform]]);
    expect(filter.maxDegree).toBe(2);
    expect(filter.groups).toHaveLength(1);
    expect(filter.groups[0]?.criteria).toEqual([platform]);
    expect([1, 2, 3].map((hops) => filter.groups[0]?.degree(hops))).toEqual([true, true, false]);
  });

  it('reads 3+ as every degree above 2 and unbounded, a negation as its complement, no filter as one open group', () => {
    const far = lineageFilterOf([[degree(['3+'])]]);
    expect([2, 3, 7].map((hops) => far.groups[0]?.degree(hops))).toEqual([false, true, true]);
    expect(far.maxDegree).toBe(Infinity);
    const notFirst = lineageFilterOf([[degree(['1'], true)]]);
    expect([1, 2].map((hops) => notFirst.groups[0]?.degree(hops))).toEqual([false, true]);
    expect(notFirst.maxDegree).toBe(Infinity);
    const none = lineageFilterOf([]);
    expect(none.groups).toHaveLength(1);
    expect(none.groups[0]?.degree(9)).toBe(true);
    expect(lineageFilterOf([[degree(['1'])], [platform]]).maxDegree).toBe(Infinity);
    expect(lineageFilterOf([[degree([])]]).groups[0]?.degree(4)).toBe(true);
  });

  it('refuses a degree value the facet does not have, with DataHub’s words', () => {
    expect(() => lineageFilterOf([[degree(['4'])]])).toThrow(
      new ValidationError('4 is not a valid filter value for degree filters'),
    );
  });

  it('counts an entity under its smallest degree’s bucket', () => {
    expect([1, 2, 3, 10].map(degreeBucket)).toEqual(['1', '2', '3+', '3+']);
  });
});

describe('scroll cursors', () => {
  const query = ['urn:li:dataset:x', 'UPSTREAM', [], '*'];

  it('given a cursor of a query, when read with that query, then it gives its offset back', () => {
    expect(decodeScrollId(encodeScrollId(40, query), query)).toBe(40);
  });

  it('given a cursor, when read with another query or garbled, then it is refused', () => {
    const cursor = encodeScrollId(40, query);
    expect(() => decodeScrollId(cursor, [...query, 'more'])).toThrow('The scrollId was issued for another query');
    for (const garbled of ['', 'not-base64!', Buffer.from('{"offset":-1,"query":"x"}').toString('base64url')]) {
      expect(() => decodeScrollId(garbled, query)).toThrow(ValidationError);
    }
  });
});

describe('compare', () => {
  it('orders by code point, as the graph does', () => {
    expect(['b', 'a', '\u{1F600}', '\uFF5E', 'B'].sort(compare)).toEqual(['B', 'a', 'b', '\uFF5E', '\u{1F600}']);
  });
});
