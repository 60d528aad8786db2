import { nameOfGraphqlEntity, ownershipTypeWords, summaryFromAspects, summaryFromGraphql } from './entity-summary';

const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:snowflake,analytics.sales.orders,PROD)';

describe('nameOfGraphqlEntity', () => {
  it('prefers edited and display names, then properties, then the key, then the URN', () => {
    expect(nameOfGraphqlEntity({ urn: DATASET, name: 'analytics.sales.orders', properties: { name: 'orders' } })).toBe(
      'orders',
    );
    expect(
      nameOfGraphqlEntity({ urn: DATASET, editableProperties: { name: 'Orders' }, properties: { name: 'orders' } }),
    ).toBe('Orders');
    expect(
      nameOfGraphqlEntity({ urn: 'urn:li:corpuser:jdoe', username: 'jdoe', properties: { displayName: 'Jane Doe' } }),
    ).toBe('Jane Doe');
    expect(nameOfGraphqlEntity({ urn: 'urn:li:corpuser:jdoe', username: 'jdoe', properties: null })).toBe('jdoe');
    expect(nameOfGraphqlEntity({ urn: DATASET })).toBe('analytics.sales.orders');
  });
});

describe('summaryFromGraphql', () => {
  const answer = {
    urn: DATASET,
    type: 'DATASET',
    name: 'analytics.sales.orders',
    origin: 'PROD',
    properties: {
      name: 'orders',
      description: 'ingested',
      customProperties: [{ key: 'team', value: 'sales' }],
      externalUrl: 'https://example.com/orders',
      lastModified: { time: 0 },
    },
    editableProperties: { description: 'edited **text**' },
    platform: { urn: 'urn:li:dataPlatform:snowflake', name: 'snowflake', properties: { displayName: 'Snowflake' } },
    subTypes: { typeNames: ['Table'] },
    parentContainers: {
      containers: [
        { urn: 'urn:li:container:schema', properties: { name: 'SALES' } },
        { urn: 'urn:li:container:db', properties: { name: 'ANALYTICS' } },
      ],
    },
    ownership: {
      owners: [
        {
          owner: { urn: 'urn:li:corpuser:jdoe', username: 'jdoe', properties: { displayName: 'Jane Doe' } },
          type: 'TECHNICAL_OWNER',
          ownershipType: { urn: 'urn:li:ownershipType:__system__technical_owner', info: { name: 'Technical Owner' } },
        },
        { owner: { urn: 'urn:li:corpGroup:eng', name: 'eng' }, type: 'DATAOWNER', ownershipType: null },
      ],
    },
    globalTags: { tags: [{ tag: { urn: 'urn:li:tag:PII', name: 'PII', properties: { name: 'PII' } } }] },
    glossaryTerms: { terms: [{ term: { urn: 'urn:li:glossaryTerm:Finance.Revenue', name: 'Revenue' } }] },
    domain: { domain: { urn: 'urn:li:domain:sales', properties: { name: 'Sales' } } },
    deprecation: { deprecated: true, note: 'Use orders_clean', decommissionTime: 1700000000000 },
    status: { removed: true },
    institutionalMemory: {
      elements: [
        {
          url: 'https://wiki/x',
          label: 'Runbook',
          description: 'Runbook',
          created: { time: 5, actor: 'urn:li:corpuser:jdoe' },
        },
      ],
    },
    privileges: { canEditDescription: true, canEditTags: false, unknownOne: true },
    lastIngested: 1700000000000,
  };

  it('gathers the header and overview', () => {
    const summary = summaryFromGraphql(DATASET, 'Dataset', answer);
    expect(summary).toMatchObject({
      urn: DATASET,
      entityType: 'dataset',
      typeLabel: 'Dataset',
      name: 'orders',
      subTypes: ['Table'],
      platform: { urn: 'urn:li:dataPlatform:snowflake', name: 'Snowflake' },
      path: [
        { urn: 'urn:li:container:db', name: 'ANALYTICS' },
        { urn: 'urn:li:container:schema', name: 'SALES' },
      ],
      description: 'edited **text**',
      externalUrl: 'https://example.com/orders',
      owners: [
        {
          urn: 'urn:li:corpuser:jdoe',
          name: 'Jane Doe',
          type: 'TECHNICAL_OWNER',
          ownershipTypeUrn: 'urn:li:ownershipType:__system__technical_owner',
          typeLabel: 'Technical Owner',
        },
        { urn: 'urn:li:corpGroup:eng', name: 'eng', type: 'DATAOWNER', typeLabel: 'Dataowner' },
      ],
      tags: [{ urn: 'urn:li:tag:PII', name: 'PII' }],
      terms: [{ urn: 'urn:li:glossaryTerm:Finance.Revenue', name: 'Revenue' }],
      domain: { urn: 'urn:li:domain:sales', name: 'Sales' },
      deprecation: { deprecated: true, note: 'Use orders_clean', decommissionTime: 1700000000000 },
      removed: true,
      links: [{ url: 'https://wiki/x', label: 'Runbook', author: 'urn:li:corpuser:jdoe', time: 5 }],
      customProperties: [{ key: 'team', value: 'sales' }],
      privileges: { canEditDescription: true, canEditTags: false },
    });
    expect(summary.has.owners && summary.has.status && summary.has.links).toBe(true);
    expect(summary.facts).toEqual([
      { label: 'Environment', value: 'PROD' },
      { label: 'Last ingested', time: 1700000000000 },
    ]);
  });

  it('takes what a sparse answer has, and the glossary nodes as the path of a term', () => {
    const summary = summaryFromGraphql('urn:li:glossaryTerm:Classification.Confidential', 'GlossaryTerm', {
      urn: 'urn:li:glossaryTerm:Classification.Confidential',
      name: 'Confidential',
      hierarchicalName: 'Classification.Confidential',
      properties: { name: 'Confidential', definition: 'Not for outside eyes', termSource: 'INTERNAL' },
      parentNodes: { nodes: [{ urn: 'urn:li:glossaryNode:Classification', properties: { name: 'Classification' } }] },
      ownership: null,
    });
    expect(summary.name).toBe('Confidential');
    expect(summary.description).toBe('Not for outside eyes');
    expect(summary.path).toEqual([{ urn: 'urn:li:glossaryNode:Classification', name: 'Classification' }]);
    expect(summary.owners).toEqual([]);
    expect(summary.domain).toBeNull();
    expect(summary.deprecation).toBeNull();
    expect(summary.has.tags).toBe(false);
    expect(summary.facts.map((fact) => fact.label)).toEqual(['Hierarchical name', 'Source']);
  });

  it('links a job to its pipeline and a user to their manager', () => {
    const job = summaryFromGraphql('urn:li:dataJob:(urn:li:dataFlow:(airflow,f,prod),j)', 'DataJob', {
      dataFlow: { urn: 'urn:li:dataFlow:(airflow,f,prod)', properties: { name: 'Finance' } },
      jobPlatform: { urn: 'urn:li:dataPlatform:airflow', name: 'airflow' },
    });
    expect(job.facts).toEqual([
      { label: 'Pipeline', entity: { urn: 'urn:li:dataFlow:(airflow,f,prod)', name: 'Finance' } },
    ]);
    expect(job.platform).toEqual({ urn: 'urn:li:dataPlatform:airflow', name: 'airflow' });
    const user = summaryFromGraphql('urn:li:corpuser:jdoe', 'CorpUser', {
      username: 'jdoe',
      properties: { displayName: 'Jane', email: 'j@x', manager: { urn: 'urn:li:corpuser:boss', username: 'boss' } },
      editableProperties: { teams: ['a', 'b'] },
    });
    expect(user.facts).toEqual([
      { label: 'Username', value: 'jdoe' },
      { label: 'Email', value: 'j@x' },
      { label: 'Manager', entity: { urn: 'urn:li:corpuser:boss', name: 'boss' } },
      { label: 'Teams', value: 'a, b' },
    ]);
  });
});

describe('summaryFromAspects', () => {
  it('reads the well-known aspects of any entity type', () => {
    const summary = summaryFromAspects('urn:li:notebook:(querybook,1)', {
      notebookKey: { value: { notebookTool: 'querybook', notebookId: '1' } },
      notebookInfo: { value: { title: 'Weekly numbers', description: 'A notebook', customProperties: { a: 'b' } } },
      ownership: { value: { owners: [{ owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER' }] } },
      globalTags: { value: { tags: [{ tag: 'urn:li:tag:PII' }] } },
      status: { value: { removed: false } },
    });
    expect(summary).toMatchObject({
      entityType: 'notebook',
      typeLabel: 'Notebook',
      name: 'Weekly numbers',
      description: 'A notebook',
      owners: [{ urn: 'urn:li:corpuser:jdoe', type: 'DATAOWNER', typeLabel: 'Dataowner' }],
      tags: [{ urn: 'urn:li:tag:PII' }],
      customProperties: [{ key: 'a', value: 'b' }],
      removed: false,
      privileges: {},
    });
    expect(summary.has).toEqual({
      owners: true,
      tags: true,
      terms: false,
      domain: false,
      deprecation: false,
      links: false,
      status: true,
    });
  });

  it('names an entity by its URN when no aspect names it', () => {
    expect(summaryFromAspects('urn:li:assertion:abc', {}).name).toBe('abc');
  });
});

describe('ownershipTypeWords', () => {
  it('says an ownership type in words', () => {
    expect(ownershipTypeWords('TECHNICAL_OWNER')).toBe('Technical owner');
    expect(ownershipTypeWords('CUSTOM')).toBeUndefined();
  });
});
