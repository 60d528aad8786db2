import { readSchemas } from '@strata/schemas';
import { ForbiddenError, UnavailableError, ValidationError, validateProposal } from '@strata/model';
import type { RequestContext } from '@strata/http';
import { testEntityRegistry } from '@strata/model/testing';
import { createEventSerde, defaultTopicNames, RecordHeader } from '@strata/events';
import type { MessageLog, OutgoingRecord } from '@strata/log';
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

    const submission = {
      requestId: 'request-1',
      actor: 'urn:li:corpuser:x',
      traceId: 't',
      authorization: { kind: 'system' } as const,
      wait: true,
    };
    await expect(submitter.submit([proposal], submission)).rejects.toBeInstanceOf(UnavailableError);
    expect(cancelled).toEqual([['request-1']]);
  });

  it('publishes a submission’s writes as its authorization check answers them, and nothing when it refuses', async () => {
    const published: string[] = [];
    const log: MessageLog = {
      publish: (records) => {
        for (const record of records) published.push(JSON.stringify(serde.proposal.decodeAny(record.value).headers));
        return Promise.resolve();
      },
      subscribe: () => Promise.reject(new Error('unused')),
      close: () => Promise.resolve(),
    };
    const asked: string[] = [];
    const submitter = new ProposalSubmitter({
      log,
      serde,
      topics: defaultTopicNames,
      outcomes: { expect: () => Promise.resolve([]), cancel: () => undefined } as unknown as OutcomeListener,
      outcomeTimeoutMs: 1_000,
      readModels: [],
      authorize: (authorization, proposals) => {
        asked.push(authorization.kind);
        if (authorization.kind === 'guards') return Promise.reject(new ForbiddenError('no'));
        return Promise.resolve(proposals.map((one) => ({ ...one, headers: { checked: authorization.kind } })));
      },
    });
    const origin = { requestId: 'r', actor: 'urn:li:corpuser:x', traceId: 't', wait: false };
    const context = { actor: 'urn:li:corpuser:x' } as RequestContext;
    await submitter.submit([proposal], { ...origin, authorization: { kind: 'caller', context } });
    await expect(
      submitter.submit([proposal], { ...origin, authorization: { kind: 'guards', context } }),
    ).rejects.toThrow(ForbiddenError);
    expect(asked).toEqual(['caller', 'guards']);
    expect(published).toEqual(['{"checked":"caller"}']);
  });

  it('publishes proposals to refuse in their places, as received and marked with the refusal, without authorizing them', async () => {
    const published: OutgoingRecord[] = [];
    const log: MessageLog = {
      publish: (records) => {
        published.push(...records);
        return Promise.resolve();
      },
      subscribe: () => Promise.reject(new Error('unused')),
      close: () => Promise.resolve(),
    };
    const authorized: number[] = [];
    const submitter = new ProposalSubmitter({
      log,
      serde,
      topics: defaultTopicNames,
      outcomes: { expect: () => Promise.resolve([]), cancel: () => undefined } as unknown as OutcomeListener,
      outcomeTimeoutMs: 1_000,
      readModels: [],
      authorize: (_authorization, proposals) => {
        authorized.push(proposals.length);
        return Promise.resolve(proposals);
      },
    });
    const input = { entityType: 'tag', entityUrn: 'urn:li:tag:Bad', changeType: 'UPSERT', aspectName: 'nope' };
    const refused = { refused: new ValidationError('Unknown aspect nope for entity tag'), input };
    const context = { actor: 'urn:li:corpuser:x' } as RequestContext;
    await submitter.submit([proposal, refused, proposal], {
      requestId: 'r',
      actor: 'urn:li:corpuser:x',
      traceId: 't',
      wait: false,
      authorization: { kind: 'caller', context },
    });

    expect(authorized).toEqual([2]);
    expect(published.map((record) => [record.key, record.headers?.[RecordHeader.requestId]])).toEqual([
      ['urn:li:tag:Unavailable', 'r/0'],
      ['urn:li:tag:Bad', 'r/1'],
      ['urn:li:tag:Unavailable', 'r/2'],
    ]);
    const [, marked] = published;
    expect(JSON.parse(marked!.value.toString('utf8'))).toEqual(input);
    expect(marked?.headers).toMatchObject({
      [RecordHeader.refusal]: 'Unknown aspect nope for entity tag',
      [RecordHeader.refusalCode]: 'validation',
      [RecordHeader.traceId]: 't',
    });
    expect(published[0]?.headers?.[RecordHeader.refusal]).toBeUndefined();
  });
});
