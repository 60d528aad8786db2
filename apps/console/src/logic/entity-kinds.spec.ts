import { graphqlObjectTypeOf, relatedSectionsOf, sectionStart, tabLabel, tabOf, tabsOf } from './entity-kinds';

describe('tabsOf and tabOf', () => {
  it('gives datasets every tab, and other types the tabs they have', () => {
    expect(tabsOf('dataset')).toEqual(['overview', 'schema', 'lineage', 'stats', 'history', 'raw']);
    expect(tabsOf('chart')).toEqual(['overview', 'lineage', 'history', 'raw']);
    expect(tabsOf('corpuser')).toEqual(['overview', 'history', 'raw']);
    expect(tabsOf('someNewType')).toEqual(['overview', 'history', 'raw']);
    expect(tabLabel('raw')).toBe('Raw');
  });

  it('reads the URL segment: none is the overview, unknown ones and ones the type lacks are nothing', () => {
    expect(tabOf(undefined, 'dataset')).toBe('overview');
    expect(tabOf('documentation', 'tag')).toBe('overview');
    expect(tabOf('schema', 'dataset')).toBe('schema');
    expect(tabOf('schema', 'chart')).toBeUndefined();
    expect(tabOf('bogus', 'dataset')).toBeUndefined();
  });
});

describe('relatedSectionsOf', () => {
  it('lists what each rich type relates to', () => {
    expect(relatedSectionsOf('chart').map((section) => section.id)).toEqual(['dashboards', 'inputs']);
    expect(relatedSectionsOf('corpGroup')[0]).toMatchObject({
      types: ['IsMemberOfGroup', 'IsMemberOfNativeGroup'],
      direction: 'INCOMING',
    });
    expect(relatedSectionsOf('dataJob').map((section) => section.types[0])).toEqual([
      'Consumes',
      'Produces',
      'DownstreamOf',
    ]);
    expect(relatedSectionsOf('dataset')).toEqual([]);
    expect(relatedSectionsOf(undefined)).toEqual([]);
  });

  it('reads a section page from the URL', () => {
    expect(sectionStart('20')).toBe(20);
    expect(sectionStart('-1')).toBe(0);
    expect(sectionStart('x')).toBe(0);
    expect(sectionStart(null)).toBe(0);
  });
});

describe('graphqlObjectTypeOf', () => {
  it('names the GraphQL type of the types read through GraphQL', () => {
    expect(graphqlObjectTypeOf('corpuser')).toBe('CorpUser');
    expect(graphqlObjectTypeOf('mlModel')).toBe('MLModel');
    expect(graphqlObjectTypeOf('assertion')).toBeUndefined();
  });
});
