import { readSchemas } from '@strata/schemas';
import { UnavailableError, validateProposal } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import { createEventSerde, defaultTopicNames } from '@strata/events';
import type { MessageLog } from '@strata/log';
import type { OutcomeListener } from '../consumers/outcome-listener';
import { ProposalSubmitter } from './proposal-submitter';

const serde = createEventSerde(readSchemas());
const proposal = validateProposal(testEntityRegistry(), {
  entityType: 'tag',
  entityUrn: 'urn:li:tag:Unavailable',
  changeType: 'UPSERT',
  aspectName: 'tagProperties',
  aspect: { value: '{"name":"Unavailable"}', contentType: 'application/json' },
});

describe('ProposalSubmitter', () => {
  it('given the log refuses the append, when a write is submitted, then it fails as unavailable (503) and stops waiting', async () => {
    const cancelled: string[][] = [];
    const outcomes = {
      expect: () => new Promise<never>(() => undefined),
      cancel: (ids: readonly string[]) => cancelled.push([...ids]),
    } as unknown as OutcomeListener;
    const log: MessageLog = {
      publish: () => Promise.reject(new Error('connection refused')),
      subscribe: () => Promise.reject(new Error('unused')),
      close: () => Promise.resolve(),
    };
    const submitter = new ProposalSubmitter({
      log,
      serde,
      topics: defaultTopicNames,
      outcomes,
      outcomeTimeoutMs: 1_000,
      readModels: [{ name: 'search', topics: [defaultTopicNames.metadataChangeLogVersioned] }],
    });

    const submission = { requestId: 'request-1', actor: 'urn:li:corpuser:x', traceId: 't', wait: true };
    await expect(submitter.submit([proposal], submission)).rejects.toBeInstanceOf(UnavailableError);
    expect(cancelled).toEqual([['request-1']]);
  });
});
