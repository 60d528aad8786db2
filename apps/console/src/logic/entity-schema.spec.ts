import { schemaFieldViews, searchableTextsOf } from './entity-schema';

const pii = { tag: { urn: 'urn:li:tag:PII', name: 'PII' } };
const gold = { tag: { urn: 'urn:li:tag:Gold', properties: { name: 'Gold tier' } } };

describe('schemaFieldViews', () => {
  it('shows the ingested field when nothing was edited', () => {
    const [view] = schemaFieldViews([
      {
        fieldPath: 'id',
        type: 'NUMBER',
        nativeDataType: 'BIGINT',
        nullable: false,
        description: 'The id',
        isPartOfKey: true,
        globalTags: { tags: [pii] },
      },
    ]);
    expect(view).toEqual({
      fieldPath: 'id',
      type: 'NUMBER',
      nativeDataType: 'BIGINT',
      nullable: false,
      isPartOfKey: true,
      isPartitioningKey: false,
      description: 'The id',
      edited: false,
      tags: [],
      terms: [],
      ingestedTags: [{ urn: 'urn:li:tag:PII', name: 'PII' }],
      ingestedTerms: [],
    });
  });

  it('puts the edited description first and splits edited from ingested tags', () => {
    const [view] = schemaFieldViews(
      [{ fieldPath: 'email', description: 'ingested', globalTags: { tags: [pii, gold] } }],
      [
        {
          fieldPath: 'email',
          description: 'edited',
          globalTags: { tags: [pii] },
          glossaryTerms: { terms: [{ term: { urn: 'urn:li:glossaryTerm:X', name: 'X' } }] },
        },
      ],
    );
    expect(view?.description).toBe('edited');
    expect(view?.edited).toBe(true);
    expect(view?.tags).toEqual([{ urn: 'urn:li:tag:PII', name: 'PII' }]);
    expect(view?.ingestedTags).toEqual([{ urn: 'urn:li:tag:Gold', name: 'Gold tier' }]);
    expect(view?.terms).toEqual([{ urn: 'urn:li:glossaryTerm:X', name: 'X' }]);
  });

  it('matches an edit by readable path when the paths differ in form, and marks primary keys', () => {
    const views = schemaFieldViews(
      [{ fieldPath: '[version=2.0].[type=struct].address.[type=string].city' }, { fieldPath: 'order_id' }],
      [{ fieldPath: 'address.city', description: 'City' }],
      ['order_id'],
    );
    expect(views[0]?.description).toBe('City');
    expect(views[0]?.nullable).toBe(false);
    expect(views[1]?.isPartOfKey).toBe(true);
  });

  it('keeps the ingested description when the edit is empty', () => {
    const [view] = schemaFieldViews([{ fieldPath: 'a', description: 'kept' }], [{ fieldPath: 'a', description: '' }]);
    expect(view?.description).toBe('kept');
    expect(view?.edited).toBe(false);
  });

  it('gives the filter the type, description and labels to look in', () => {
    const [view] = schemaFieldViews([
      { fieldPath: 'a', type: 'STRING', description: 'hello', globalTags: { tags: [pii] } },
    ]);
    expect(view === undefined ? [] : searchableTextsOf(view)).toEqual(['STRING', '', 'hello', 'PII urn:li:tag:PII']);
  });
});
