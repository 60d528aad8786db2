import {
  displayNameOfUrn,
  entityPath,
  entityTypeLabel,
  entityTypeOfGraphql,
  entityTypeOfUrn,
  graphqlEntityType,
  platformOfUrn,
  tupleParts,
} from './urn';

const dataset = 'urn:li:dataset:(urn:li:dataPlatform:snowflake,analytics.sales.orders,PROD)';
const job = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,finance_daily,prod),load_ledger)';

describe('URNs as the console shows them', () => {
  it('splits tuple keys at their top-level commas only', () => {
    expect(tupleParts('(urn:li:dataFlow:(airflow,finance_daily,prod),load_ledger)')).toEqual([
      'urn:li:dataFlow:(airflow,finance_daily,prod)',
      'load_ledger',
    ]);
    expect(tupleParts('plain')).toEqual(['plain']);
  });

  it('names the type, the platform and a readable name', () => {
    expect(entityTypeOfUrn(dataset)).toBe('dataset');
    expect(entityTypeOfUrn('not a urn')).toBeUndefined();
    expect(platformOfUrn(dataset)).toBe('urn:li:dataPlatform:snowflake');
    expect(platformOfUrn(job)).toBe('urn:li:dataPlatform:airflow');
    expect(platformOfUrn('urn:li:chart:(looker,daily_revenue)')).toBe('urn:li:dataPlatform:looker');
    expect(platformOfUrn('urn:li:tag:PII')).toBeUndefined();
    expect(displayNameOfUrn(dataset)).toBe('analytics.sales.orders');
    expect(displayNameOfUrn(job)).toBe('load_ledger');
    expect(displayNameOfUrn(`urn:li:schemaField:(${dataset},amount)`)).toBe('amount');
    expect(displayNameOfUrn('urn:li:corpuser:jdoe')).toBe('jdoe');
  });

  it('links an entity page with the URN encoded once, at an optional tab', () => {
    expect(entityPath(dataset)).toBe(`/entity/${encodeURIComponent(dataset)}`);
    expect(entityPath(dataset, 'schema')).toBe(`/entity/${encodeURIComponent(dataset)}/schema`);
    expect(decodeURIComponent(entityPath('urn:li:dataset:(urn:li:dataPlatform:s3,a/b?c#d,PROD)').slice(8))).toBe(
      'urn:li:dataset:(urn:li:dataPlatform:s3,a/b?c#d,PROD)',
    );
  });

  it('maps entity names to DataHub’s EntityType values and back, with DataHub’s exceptions', () => {
    for (const [name, value] of [
      ['dataset', 'DATASET'],
      ['dataJob', 'DATA_JOB'],
      ['corpuser', 'CORP_USER'],
      ['corpGroup', 'CORP_GROUP'],
      ['mlModel', 'MLMODEL'],
      ['glossaryTerm', 'GLOSSARY_TERM'],
      ['dataHubAccessToken', 'ACCESS_TOKEN'],
      ['dataHubPolicy', 'DATAHUB_POLICY'],
    ]) {
      expect(graphqlEntityType(name ?? '')).toBe(value);
      expect(entityTypeOfGraphql(value ?? '')).toBe(name);
    }
    expect(entityTypeLabel('corpuser')).toBe('User');
    expect(entityTypeLabel('dataPlatformInstance')).toBe('Platform instance');
    expect(entityTypeLabel('someNewType')).toBe('Some new type');
  });
});
