import { BadRequestError, validateProposal } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import { usageProposalOf } from './usage-proposals';

const registry = testEntityRegistry();
const resource = 'urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)';

describe('usageProposalOf', () => {
  it('given a bucket, then the datasetUsageStatistics value DataHub makes of it, users’ emails dropped', () => {
    const proposal = usageProposalOf(
      {
        bucket: 1_700_006_400_000,
        duration: 'WEEK',
        resource,
        metrics: {
          uniqueUserCount: 2,
          users: [
            { user: 'urn:li:corpuser:alice', count: 3, userEmail: 'alice@example.com' },
            { user: 'urn:li:corpuser:bob', count: 1 },
          ],
          totalSqlQueries: 4,
          topSqlQueries: ['select 1'],
          fields: [{ fieldName: 'id', count: 2 }],
        },
      },
      0,
    );
    expect(proposal).toMatchObject({
      entityType: 'dataset',
      entityUrn: resource,
      changeType: 'UPSERT',
      aspectName: 'datasetUsageStatistics',
    });
    const validated = validateProposal(registry, proposal);
    expect(validated.value).toEqual({
      timestampMillis: 1_700_006_400_000,
      eventGranularity: { unit: 'WEEK', multiple: 1 },
      uniqueUserCount: 2,
      totalSqlQueries: 4,
      topSqlQueries: ['select 1'],
      userCounts: [
        { user: 'urn:li:corpuser:alice', count: 3 },
        { user: 'urn:li:corpuser:bob', count: 1 },
      ],
      fieldCounts: [{ fieldPath: 'id', count: 2 }],
    });
  });

  it('given only a bucket and duration, then only the time and granularity', () => {
    const proposal = usageProposalOf({ bucket: 5, duration: 'HOUR', resource, metrics: {} }, 0);
    expect(validateProposal(registry, proposal).value).toEqual({
      timestampMillis: 5,
      eventGranularity: { unit: 'HOUR', multiple: 1 },
    });
  });

  it('given a user without its URN, then a 400 naming it', () => {
    expect(() =>
      usageProposalOf(
        { bucket: 5, duration: 'DAY', resource, metrics: { users: [{ count: 1, userEmail: 'x@y' }] } },
        3,
      ),
    ).toThrow(new BadRequestError('buckets[3].metrics.users[0]: user is required to record usage'));
  });
});
