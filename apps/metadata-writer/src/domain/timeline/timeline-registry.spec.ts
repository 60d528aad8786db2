import { aspectsFeeding } from './timeline-registry';

const DATASET_ASPECTS = [
  'datasetKey',
  'schemaMetadata',
  'status',
  'deprecation',
  'datasetProperties',
  'editableDatasetProperties',
  'institutionalMemory',
  'ownership',
  'editableSchemaMetadata',
  'globalTags',
  'glossaryTerms',
  'domains',
];

const fed = (entityType: string, declared: string[], categories: Parameters<typeof aspectsFeeding>[2]) =>
  aspectsFeeding(entityType, declared, categories).map(({ aspect, categories: feeds }) => [aspect, feeds]);

describe('aspectsFeeding', () => {
  it("given a dataset and the CLI's categories, when resolved, then DataHub's aspects, in declaration order, each with the categories it feeds in the order asked", () => {
    expect(fed('dataset', DATASET_ASPECTS, ['TAG', 'OWNERSHIP', 'TECHNICAL_SCHEMA', 'DOCUMENTATION'])).toEqual([
      ['schemaMetadata', ['TAG', 'TECHNICAL_SCHEMA', 'DOCUMENTATION']],
      ['datasetProperties', ['DOCUMENTATION']],
      ['editableDatasetProperties', ['DOCUMENTATION']],
      ['institutionalMemory', ['DOCUMENTATION']],
      ['ownership', ['OWNERSHIP']],
      ['editableSchemaMetadata', ['TAG', 'DOCUMENTATION']],
      ['globalTags', ['TAG']],
    ]);
  });

  it('given a dataset and GLOSSARY_TERM, when resolved, then its terms and its fields terms, not the schema', () => {
    expect(fed('dataset', DATASET_ASPECTS, ['GLOSSARY_TERM'])).toEqual([
      ['editableSchemaMetadata', ['GLOSSARY_TERM']],
      ['glossaryTerms', ['GLOSSARY_TERM']],
    ]);
  });

  it('given any entity and LIFECYCLE or DEPRECATION, when resolved, then its status and deprecation', () => {
    expect(fed('dataset', DATASET_ASPECTS, ['LIFECYCLE', 'DEPRECATION'])).toEqual([
      ['status', ['LIFECYCLE']],
      ['deprecation', ['DEPRECATION']],
    ]);
    expect(fed('chart', ['chartKey', 'status', 'globalTags'], ['LIFECYCLE'])).toEqual([['status', ['LIFECYCLE']]]);
  });

  it('given an entity type outside DataHub’s timeline, when resolved, then its aspects feed their generators’ categories', () => {
    expect(
      fed(
        'chart',
        ['chartKey', 'chartInfo', 'ownership', 'globalTags', 'glossaryTerms', 'domains'],
        ['TAG', 'OWNERSHIP', 'GLOSSARY_TERM', 'DOMAIN'],
      ),
    ).toEqual([
      ['ownership', ['OWNERSHIP']],
      ['globalTags', ['TAG']],
      ['glossaryTerms', ['GLOSSARY_TERM']],
      ['domains', ['DOMAIN']],
    ]);
  });

  it("given a glossary term, when resolved, then DataHub's: its definition documents it, its related terms are its terms", () => {
    expect(
      fed(
        'glossaryTerm',
        ['glossaryTermKey', 'glossaryTermInfo', 'glossaryRelatedTerms', 'institutionalMemory'],
        ['DOCUMENTATION', 'GLOSSARY_TERM'],
      ),
    ).toEqual([
      ['glossaryTermInfo', ['DOCUMENTATION']],
      ['glossaryRelatedTerms', ['GLOSSARY_TERM']],
    ]);
  });

  it('given a data product, when resolved, then its properties feed both its documentation and its assets', () => {
    expect(
      fed('dataProduct', ['dataProductKey', 'dataProductProperties'], ['ASSET_MEMBERSHIP', 'DOCUMENTATION']),
    ).toEqual([['dataProductProperties', ['ASSET_MEMBERSHIP', 'DOCUMENTATION']]]);
  });

  it('given a category no aspect feeds, when resolved, then nothing', () => {
    expect(fed('dataset', DATASET_ASPECTS, ['RUN', 'BUSINESS_ATTRIBUTE'])).toEqual([]);
  });
});
