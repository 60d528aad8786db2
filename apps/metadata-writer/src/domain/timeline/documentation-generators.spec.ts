import {
  dataProductPropertiesGenerator,
  datasetPropertiesGenerator,
  documentInfoGenerator,
  domainPropertiesGenerator,
  editableDatasetPropertiesGenerator,
  glossaryRelatedTermsGenerator,
  glossaryTermInfoGenerator,
} from './documentation-generators';

const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)';
const stamp = { time: 1000, actor: 'urn:li:corpuser:writer' };
const on = (entityUrn: string) => ({ entityUrn, stamp });

describe('datasetProperties', () => {
  it('given a description added, changed and removed, when compared for DOCUMENTATION, then MINOR events with the description as a parameter', () => {
    expect(datasetPropertiesGenerator(['DOCUMENTATION'], {}, { description: 'One' }, on(dataset))).toEqual([
      {
        entityUrn: dataset,
        category: 'DOCUMENTATION',
        operation: 'ADD',
        parameters: { description: 'One' },
        semVerChange: 'MINOR',
        description: `Documentation for '${dataset}' has been added: 'One'.`,
      },
    ]);
    expect(
      datasetPropertiesGenerator(['DOCUMENTATION'], { description: 'One' }, { description: 'Two' }, on(dataset)),
    ).toMatchObject([
      {
        operation: 'MODIFY',
        semVerChange: 'MINOR',
        parameters: { description: 'Two' },
        description: `Documentation of '${dataset}' has been changed from 'One' to 'Two'.`,
      },
    ]);
    expect(datasetPropertiesGenerator(['DOCUMENTATION'], { description: 'Two' }, {}, on(dataset))).toMatchObject([
      { operation: 'REMOVE', parameters: { description: 'Two' } },
    ]);
  });

  it('given other members changed only, when compared, then nothing', () => {
    expect(
      datasetPropertiesGenerator(['DOCUMENTATION'], { name: 'a' }, { name: 'b', customProperties: {} }, on(dataset)),
    ).toEqual([]);
  });
});

describe('editableDatasetProperties', () => {
  it('given a description written by a user, when compared, then a MINOR ADD without parameters', () => {
    expect(
      editableDatasetPropertiesGenerator(['DOCUMENTATION'], undefined, { description: 'Hi' }, on(dataset)),
    ).toEqual([
      {
        entityUrn: dataset,
        category: 'DOCUMENTATION',
        operation: 'ADD',
        semVerChange: 'MINOR',
        description: `Documentation for '${dataset}' has been added: 'Hi'.`,
      },
    ]);
  });
});

describe('glossaryTermInfo', () => {
  it("given a term's definition changed, when compared, then it reads as its documentation changed", () => {
    const term = 'urn:li:glossaryTerm:Revenue';
    expect(
      glossaryTermInfoGenerator(['DOCUMENTATION'], { definition: 'a' }, { definition: 'b' }, on(term)),
    ).toMatchObject([
      { operation: 'MODIFY', description: `Documentation of '${term}' has been changed from 'a' to 'b'.` },
    ]);
  });
});

describe('domainProperties', () => {
  const domain = 'urn:li:domain:sales';

  it('given a first version, when compared, then the name is set and the description added', () => {
    expect(
      domainPropertiesGenerator(['DOCUMENTATION'], undefined, { name: 'Sales', description: 'd' }, on(domain)),
    ).toEqual([
      {
        entityUrn: domain,
        category: 'DOCUMENTATION',
        operation: 'ADD',
        semVerChange: 'MINOR',
        description: `Name for '${domain}' has been set: 'Sales'.`,
      },
      {
        entityUrn: domain,
        category: 'DOCUMENTATION',
        operation: 'ADD',
        semVerChange: 'MINOR',
        description: `Description for '${domain}' has been added: 'd'.`,
      },
    ]);
  });

  it('given the name changed and the description removed, when compared, then a MODIFY and a REMOVE', () => {
    expect(
      domainPropertiesGenerator(['DOCUMENTATION'], { name: 'A', description: 'd' }, { name: 'B' }, on(domain)).map(
        (event) => event.description,
      ),
    ).toEqual([
      `Name of '${domain}' has been changed from 'A' to 'B'.`,
      `Description for '${domain}' has been removed: 'd'.`,
    ]);
  });
});

describe('dataProductProperties', () => {
  const product = 'urn:li:dataProduct:orders';
  const assets = (...urns: string[]) => urns.map((destinationUrn) => ({ destinationUrn }));

  it('given assets added and removed, when compared for ASSET_MEMBERSHIP, then one MINOR event per asset', () => {
    expect(
      dataProductPropertiesGenerator(
        ['ASSET_MEMBERSHIP'],
        { name: 'Orders', assets: assets('urn:li:dataset:a') },
        { name: 'Orders', assets: assets('urn:li:dataset:b') },
        on(product),
      ),
    ).toEqual([
      {
        entityUrn: product,
        category: 'ASSET_MEMBERSHIP',
        operation: 'REMOVE',
        modifier: 'urn:li:dataset:a',
        semVerChange: 'MINOR',
        description: `Asset 'urn:li:dataset:a' removed from data product '${product}'.`,
      },
      {
        entityUrn: product,
        category: 'ASSET_MEMBERSHIP',
        operation: 'ADD',
        modifier: 'urn:li:dataset:b',
        semVerChange: 'MINOR',
        description: `Asset 'urn:li:dataset:b' added to data product '${product}'.`,
      },
    ]);
  });

  it('given both categories requested, when compared, then documentation and membership come in the order asked', () => {
    const events = dataProductPropertiesGenerator(
      ['ASSET_MEMBERSHIP', 'DOCUMENTATION'],
      undefined,
      { name: 'Orders', assets: assets('urn:li:dataset:a') },
      on(product),
    );
    expect(events.map((event) => event.category)).toEqual(['ASSET_MEMBERSHIP', 'DOCUMENTATION']);
  });
});

describe('glossaryRelatedTerms', () => {
  it('given related terms of each kind added, when compared for GLOSSARY_TERM, then one event per term with its relationship', () => {
    const term = 'urn:li:glossaryTerm:Revenue';
    const events = glossaryRelatedTermsGenerator(
      ['GLOSSARY_TERM'],
      undefined,
      { isRelatedTerms: ['urn:li:glossaryTerm:Money'], relatedTerms: ['urn:li:glossaryTerm:Sales'] },
      on(term),
    );
    expect(events).toEqual([
      {
        entityUrn: term,
        category: 'GLOSSARY_TERM',
        operation: 'ADD',
        modifier: 'urn:li:glossaryTerm:Money',
        parameters: { termUrn: 'urn:li:glossaryTerm:Money', relationshipType: 'Is A' },
        semVerChange: 'MINOR',
        description: `'Is A' relationship 'Money' added to '${term}'.`,
      },
      {
        entityUrn: term,
        category: 'GLOSSARY_TERM',
        operation: 'ADD',
        modifier: 'urn:li:glossaryTerm:Sales',
        parameters: { termUrn: 'urn:li:glossaryTerm:Sales', relationshipType: 'Is Related To' },
        semVerChange: 'MINOR',
        description: `'Is Related To' relationship 'Sales' added to '${term}'.`,
      },
    ]);
  });
});

describe('documentInfo', () => {
  const document = 'urn:li:document:runbook';
  const v1 = { title: 'Runbook', contents: { text: 'one' }, status: { state: 'UNPUBLISHED' } };

  it('given its first version, when compared for any of its categories, then one LIFECYCLE CREATE', () => {
    expect(documentInfoGenerator(['DOCUMENTATION', 'PARENT'], undefined, v1, on(document))).toEqual([
      {
        entityUrn: document,
        auditStamp: stamp,
        category: 'LIFECYCLE',
        operation: 'CREATE',
        description: "Document 'Runbook' was created",
      },
    ]);
  });

  it('given title, text, parent, related assets and state changed, when compared for each category, then one event each, unrated', () => {
    const v2 = {
      title: 'Runbook v2',
      contents: { text: 'two' },
      status: { state: 'PUBLISHED' },
      parentDocument: { document: 'urn:li:document:ops' },
      relatedAssets: [{ asset: dataset }],
    };
    const events = documentInfoGenerator(
      ['DOCUMENTATION', 'PARENT', 'RELATED_ENTITIES', 'LIFECYCLE'],
      v1,
      v2,
      on(document),
    );
    expect(events.map((event) => [event.category, event.operation, event.description])).toEqual([
      ['DOCUMENTATION', 'MODIFY', "Document title changed from 'Runbook' to 'Runbook v2'"],
      ['DOCUMENTATION', 'MODIFY', 'Document text content was modified'],
      ['PARENT', 'MODIFY', 'Document moved to parent urn:li:document:ops'],
      ['RELATED_ENTITIES', 'ADD', `Related asset ${dataset} was added`],
      ['LIFECYCLE', 'MODIFY', 'Document state changed from UNPUBLISHED to PUBLISHED'],
    ]);
    expect(events.every((event) => event.semVerChange === undefined && event.auditStamp === stamp)).toBe(true);
    expect(events[0]?.parameters).toEqual({ oldTitle: 'Runbook', newTitle: 'Runbook v2' });
  });
});
